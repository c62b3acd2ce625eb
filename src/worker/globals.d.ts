// Tells @cloudflare/workers-types what this Worker exports and binds, so `env` and `exports`
// from "cloudflare:workers" are typed (the hand-written equivalent of `wrangler types`).
type LatticeEnv = import("./env.ts").Env;

declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("./index.ts");
    durableNamespaces: "TenantDO" | "HubDO" | "SpokeDO" | "ArtifactsDO";
  }
  interface Env extends LatticeEnv {}
}
