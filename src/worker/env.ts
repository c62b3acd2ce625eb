import type { KeyRole } from "../objects/tenant/keys.ts";
import type { TraceContext } from "../objects/tracing.ts";

/** Who is calling, from the verified API key. */
export interface Principal {
  tenantId: string;
  keyId: string;
  role: KeyRole;
  /** Set for a user token: the one user it acts for, and the session roles it allows (null: any). */
  user?: { userId: string; roles: string[] | null };
  /**
   * Set for a consent link (credentials.ts): the one consent of one user's session it answers. The
   * edge lets it reach nothing else (credentials.ts linkReaches); openHub checks the session too.
   */
  link?: { userId: string; sessionId: string; consentId: string };
}

/** Hono environment shared by every route file; `Env` is the ambient bindings type (src/env.d.ts). */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    principal: Principal;
    /** This request's span (middleware/trace), set only while tracing is on. */
    trace?: TraceContext;
  };
}
