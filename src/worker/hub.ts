import type { HubDO } from "../objects/hub/index.ts";
import { hubObjectName } from "../objects/names.ts";
import { type Rpc, rpc } from "../objects/rpc.ts";
import type { AppEnv } from "./env.ts";
import { notFound } from "./errors.ts";

type Ctx = { env: AppEnv["Bindings"]; var: AppEnv["Variables"] };

export function hubOf(c: Ctx, sid: string): Rpc<HubDO> {
  return rpc<HubDO>(c.env.HUB.getByName(hubObjectName(c.var.principal.tenantId, sid)));
}

/** The session's hub, or 404: an unknown id (or another tenant's) never creates anything visible. */
export async function openHub(c: Ctx, sid: string): Promise<Rpc<HubDO>> {
  const hub = hubOf(c, sid);
  if (!(await hub.session())) throw notFound("session");
  return hub;
}
