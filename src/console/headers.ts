import { createMiddleware } from "hono/factory";

/**
 * The console's pages hold a credential in the tab, so they take the strictest headers: scripts and
 * styles only from this origin (no inline script at all), fetches only to this origin (the public
 * API), never framed, no referrer (a link out never carries a session id), never cached.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

export const securityHeaders = createMiddleware(async (c, next) => {
  await next();
  c.res.headers.set("Content-Security-Policy", CSP);
  c.res.headers.set("X-Frame-Options", "DENY");
  c.res.headers.set("X-Content-Type-Options", "nosniff");
  c.res.headers.set("Referrer-Policy", "no-referrer");
  c.res.headers.set("Cross-Origin-Opener-Policy", "same-origin");
  c.res.headers.set("Cache-Control", "no-store");
});
