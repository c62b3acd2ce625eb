import { MAX_TOKEN_SECONDS, mintConsentLink } from "../../credentials.ts";
import type { QueryView } from "../../objects/hub/view.ts";
import type { AppEnv } from "../env.ts";
import { pendingConsents } from "./render.ts";
import { firstHeader, trustedHeaders } from "./trusted-headers.ts";

type Ctx = {
  env: AppEnv["Bindings"];
  var: AppEnv["Variables"];
  req: { header(name: string): string | undefined };
};

/** The longest display name a link carries (code points). */
const MAX_NAME = 64;

/**
 * The display name the chat frontend forwarded for its user (Open WebUI's X-OpenWebUI-User-Name),
 * for the link's page to greet them by: a person with two chats sees the link is theirs. Only a
 * frontend key's word counts, as for the user; control and format characters are dropped (no
 * line break or bidi override reaches the page) and it is cut to MAX_NAME.
 */
export async function forwardedName(c: Ctx): Promise<string | undefined> {
  if (c.var.principal.user) return undefined;
  const trusted = await trustedHeaders(c.env, c.var.principal.tenantId);
  const raw = firstHeader(c, trusted.name ?? [])?.value;
  if (!raw) return undefined;
  const name = [
    ...raw
      .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, "")
      .replace(/\s+/g, " ")
      .trim(),
  ]
    .slice(0, MAX_NAME)
    .join("")
    .trim();
  return name || undefined;
}

/**
 * A consent link's token for each pending consent of the query, by consent id: what lets the chat's
 * user answer in the console with no Lattice credential of their own (credentials.ts). Each lasts
 * until its consent expires, an hour at most (a later turn shows fresh ones). None without the
 * deployment's LATTICE_KEY_SECRET: the links then open the console's sign-in as before. Each
 * carries the user's forwarded display name, when there is one (forwardedName).
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
  const name = await forwardedName(c);
  const latest = Math.floor(now / 1000) + MAX_TOKEN_SECONDS;
  const entries = await Promise.all(
    pendingConsents(query).map(async (consent) => {
      const exp = Math.min(Math.floor(Date.parse(consent.expiresAt) / 1000), latest);
      const link = { u: userId, s: sid, c: consent.id, exp, kid: keyId, ...(name && { n: name }) };
      return [consent.id, await mintConsentLink(secret, link, tenantId)] as const;
    }),
  );
  return Object.fromEntries(entries);
}
