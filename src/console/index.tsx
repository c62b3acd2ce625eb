import { Hono } from "hono";
import { API_REFERENCE_STYLES } from "./api-reference/styles.ts";
import { securityHeaders } from "./headers.ts";
import { AdminAppsPage, AuditPage, CatalogPage, PolicyPage } from "./pages/admin.tsx";
import { ChatPage } from "./pages/chat.tsx";
import { ConsentPage } from "./pages/consent.tsx";
import { DataPage } from "./pages/data.tsx";
import { DeveloperPage } from "./pages/developer.tsx";
import { PlanPage } from "./pages/plan.tsx";
import { SCRIPT } from "./script.gen.ts";
import { STYLES } from "./styles.ts";

// Route patterns admit only what an id can hold, so a shell's data attributes are always plain ids.
const SID = "sid{ses_[a-f0-9]+}";
const ID = "{[A-Za-z0-9_-]+}";

/**
 * The web console (/console): server-rendered page shells, one served script and one stylesheet.
 * It holds no state and no secret: the script calls the public API from the browser with the
 * credential the user signed in with, so anything it does, an API client can do.
 */
export const consoleRoutes = new Hono()
  .use(securityHeaders)
  .get("/static/console.js", (c) => c.body(SCRIPT, 200, { "Content-Type": "text/javascript; charset=utf-8" }))
  .get("/static/console.css", (c) => c.body(STYLES, 200, { "Content-Type": "text/css; charset=utf-8" }))
  // The API reference's own (/docs, served under these same headers).
  .get("/static/api-reference.css", (c) =>
    c.body(API_REFERENCE_STYLES, 200, { "Content-Type": "text/css; charset=utf-8" }),
  )
  .get("/", (c) => c.html(<ChatPage />))
  .get(`/sessions/:${SID}`, (c) => c.html(<ChatPage sessionId={c.req.param("sid")} />))
  .get(`/sessions/:${SID}/consents/:cid${ID}`, (c) =>
    c.html(<ConsentPage sessionId={c.req.param("sid")} consentId={c.req.param("cid")} />),
  )
  .get(`/sessions/:${SID}/queries/:qid${ID}`, (c) =>
    c.html(<PlanPage sessionId={c.req.param("sid")} queryId={c.req.param("qid")} />),
  )
  .get("/data", (c) => c.html(<DataPage />))
  .get("/admin", (c) => c.html(<AdminAppsPage />))
  .get("/admin/catalog", (c) => c.html(<CatalogPage />))
  .get("/admin/policy", (c) => c.html(<PolicyPage />))
  .get("/admin/audit", (c) => c.html(<AuditPage />))
  .get("/developer", (c) => c.html(<DeveloperPage />));
