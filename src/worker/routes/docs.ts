import type { OpenAPIHono } from "@hono/zod-openapi";
import { Hono } from "hono";
import { html, raw } from "hono/html";
import type { AppEnv } from "../env.ts";

type Operation = { summary?: string; tags?: string[] };

/**
 * A self-contained docs page rendered from the same OpenAPI document (no CDN: works offline).
 * Lists every operation; the machine-readable contract stays at /openapi.json.
 */
export function docsRoutes(api: OpenAPIHono<AppEnv>) {
  return new Hono<AppEnv>().get("/docs", (c) => {
    const doc = api.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "Lattice API", version: "1" } });
    const rows = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
      Object.entries(item as Record<string, Operation>).map(
        ([method, op]) =>
          html`<tr><td><code>${method.toUpperCase()}</code></td><td><code>${path}</code></td><td>${op.tags?.join(", ") ?? ""}</td><td>${op.summary ?? ""}</td></tr>`,
      ),
    );
    return c.html(html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Lattice API</title>
<style>body{font:15px system-ui;margin:2rem;max-width:70rem}td{padding:.3rem .8rem;border-bottom:1px solid #ddd}</style>
</head><body><h1>Lattice API v1</h1>
<p>The full contract, with every schema, is at <a href="/openapi.json">/openapi.json</a>.
Errors are always <code>{"error": {"code", "message", "details"?}}</code>.</p>
<table><tr><th>method</th><th>path</th><th>for</th><th>does</th></tr>${raw(rows.join(""))}</table>
</body></html>`);
  });
}
