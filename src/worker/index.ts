import app from "./app.ts";

export { ArtifactsDO } from "../objects/artifacts/index.ts";
export { HubDO } from "../objects/hub/index.ts";
export { SpokeDO } from "../objects/spoke/index.ts";
export { TenantDO } from "../objects/tenant/index.ts";
export type { AppType } from "./app.ts";

export default app;
