import type { HubDO } from "../objects/hub/index.ts";
import type { Rpc } from "../objects/rpc.ts";
import { hubStub } from "../objects/stubs.ts";
import type { AppEnv } from "./env.ts";
import { notFound } from "./errors.ts";
import { ownUser } from "./middleware/auth/index.ts";

type Ctx = { env: AppEnv["Bindings"]; var: AppEnv["Variables"] };

export function hubOf(c: Ctx, sid: string): Rpc<HubDO> {
  return hubStub(c.env, c.var.principal.tenantId, sid);
}

/** The session's hub, or 404: an unknown id (or another tenant's) never creates anything visible. */
export async function openHub(c: Ctx, sid: string): Promise<Rpc<HubDO>> {
  const hub = hubOf(c, sid);
  const session = await hub.session();
  // A session belongs to its user: a user token for anyone else finds nothing.
  if (!session || !ownUser(c, session.userId)) throw notFound("session");
  return hub;
}
