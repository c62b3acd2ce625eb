import { purposeKey } from "../../derive.ts";
import { hex } from "../../objects/crypto.ts";
import { tenantPolicy } from "../../objects/tenant-replica/index.ts";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";

/**
 * What a stock chat frontend (Open WebUI, LibreChat) tells Lattice in headers it cannot be taught
 * to send otherwise: the user (trusted only with a frontend key, see callerUser) and the chat, so
 * that every turn of one chat is one session. The tenant's policy names the headers
 * (`trustedHeaders`), read from the isolate's replica of the tenant (tenant-replica/): a change applies
 * at once where it was written, within STATE_BOUND_MS (5 s) elsewhere.
 */

type Ctx = {
  env: AppEnv["Bindings"];
  var: AppEnv["Variables"];
  req: { header(name: string): string | undefined };
};

export interface TrustedHeaders {
  user: string[];
  chat: string[];
  /** The user's display name: shown on the consent link's page, never used to name a user. */
  name: string[];
}

export function trustedHeaders(env: Env, tenantId: string): Promise<TrustedHeaders> {
  // A failed read is the tenant object's trouble, not the caller's: 503 with a retry, never a 500.
  return tenantPolicy(env, tenantId).then(
    (policy) => policy.trustedHeaders,
    (cause: unknown) => {
      throw new ApiError(503, "upstream_failed", {
        message: "the tenant's settings could not be read; try again",
        headers: { "Retry-After": "1" },
        cause,
      });
    },
  );
}

/** The first of `names` the request carries (a header sent empty counts as absent). */
export function firstHeader(c: Ctx, names: string[]): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = c.req.header(name)?.trim();
    if (value) return { name, value };
  }
  return undefined;
}

const MAX_CHAT_ID = 256;

/**
 * The session of one chat: `ses_` and 16 bytes of HMAC-SHA-256 over (tenant, user, chat id) under
 * the deployment's chat-sessions key. The user is part of it, so a chat id another user's frontend
 * sent (or a guessed one) names a different session; the key keeps the ids unpredictable to anyone
 * without the deployment's secret.
 */
export async function chatSessionId(
  secret: string | undefined,
  tenantId: string,
  userId: string,
  chat: { name: string; value: string },
): Promise<string> {
  if (!secret)
    throw new ApiError(503, "not_configured", {
      message: `this deployment sets no LATTICE_KEY_SECRET, so ${chat.name} cannot name a session`,
    });
  if (chat.value.length > MAX_CHAT_ID)
    throw new ApiError(400, "invalid_request", {
      message: `${chat.name} is longer than ${MAX_CHAT_ID} characters`,
      details: { param: chat.name },
    });
  const key = await purposeKey(secret, "chat-sessions", { name: "HMAC", hash: "SHA-256", length: 256 }, [
    "sign",
  ]);
  const message = new TextEncoder().encode(JSON.stringify([tenantId, userId, chat.value]));
  return `ses_${hex(new Uint8Array(await crypto.subtle.sign("HMAC", key, message)).slice(0, 16))}`;
}
