import type { Answerer, HubDO } from "../objects/hub/index.ts";
import { type Caller, mayUse } from "../objects/hub/store.ts";
import type { Rpc } from "../objects/rpc.ts";
import { hubStub } from "../objects/stubs.ts";
import type { AppEnv } from "./env.ts";
import { notFound } from "./errors.ts";

type Ctx = { env: AppEnv["Bindings"]; var: AppEnv["Variables"] };

export function hubOf(c: Ctx, sid: string): Rpc<HubDO> {
  return hubStub(c.env, c.var.principal.tenantId, sid);
}

/** The session's hub, or 404: an unknown id (or another tenant's) never creates anything visible. */
export async function openHub(c: Ctx, sid: string): Promise<Rpc<HubDO>> {
  const hub = hubOf(c, sid);
  const session = await hub.session();
  // A session belongs to its user and roles: a user token for anyone else, or lacking one of the
  // session's roles, finds nothing.
  if (!session || !mayUse(session, callerOf(c))) throw notFound("session");
  // A consent link acts for its one session's user (the edge already held it to its path).
  const link = c.var.principal.link;
  if (link && (link.sessionId !== sid || link.userId !== session.userId)) throw notFound("session");
  return hub;
}

/** Who answers a consent, as its audit row names them: the key's id, and a user token's user. */
export function answererOf(c: Pick<Ctx, "var">): Answerer {
  const { keyId, user, link } = c.var.principal;
  if (link) return { keyId, viaUserToken: false, viaConsentLink: true, userId: link.userId };
  return user ? { keyId, viaUserToken: true, userId: user.userId } : { keyId, viaUserToken: false };
}

/** A user token's user and the roles it grants (none when issued without); null for an API key. */
export function callerOf(c: Pick<Ctx, "var">): Caller | null {
  const user = c.var.principal.user;
  return user ? { userId: user.userId, roles: user.roles ?? [] } : null;
}
