import { MAX_TOKEN_SECONDS, mintConsentLink } from "../../credentials.ts";
import type { QueryView } from "../../objects/hub/view.ts";
import type { AppEnv } from "../env.ts";
import { pendingConsents } from "./render.ts";

type Ctx = { env: AppEnv["Bindings"]; var: AppEnv["Variables"] };

/**
 * A consent link's token for each pending consent of the query, by consent id: what lets the chat's
 * user answer in the console with no Lattice credential of their own (credentials.ts). Each lasts
 * until its consent expires, an hour at most (a later turn shows fresh ones). None without the
 * deployment's LATTICE_KEY_SECRET: the links then open the console's sign-in as before.
 */
export async function consentLinkTokens(
  c: Ctx,
  userId: string,
  sid: string,
  query: QueryView,
  now = Date.now(),
): Promise<Record<string, string>> {
  const secret = c.env.LATTICE_KEY_SECRET;
  if (!secret) return {};
  const { tenantId, keyId } = c.var.principal;
  const latest = Math.floor(now / 1000) + MAX_TOKEN_SECONDS;
  const entries = await Promise.all(
    pendingConsents(query).map(async (consent) => {
      const exp = Math.min(Math.floor(Date.parse(consent.expiresAt) / 1000), latest);
      const link = { u: userId, s: sid, c: consent.id, exp, kid: keyId };
      return [consent.id, await mintConsentLink(secret, link, tenantId)] as const;
    }),
  );
  return Object.fromEntries(entries);
}
