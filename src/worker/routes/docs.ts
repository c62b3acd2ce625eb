import type { OpenAPIHono } from "@hono/zod-openapi";
import { Hono } from "hono";
import type { OpenApiDocument } from "../../console/api-reference/openapi.ts";
import { renderApiReference } from "../../console/api-reference/page.tsx";
import { securityHeaders } from "../../console/headers.ts";
import type { AppEnv } from "../env.ts";

/**
 * The API reference (/docs), rendered on the server from the same OpenAPI document /openapi.json
 * serves: no CDN and no inline script, under the console's CSP. The document is fixed for the
 * isolate's life, so the page is rendered once.
 */
export function docsRoutes(
  api: OpenAPIHono<AppEnv>,
  config: Parameters<OpenAPIHono<AppEnv>["getOpenAPI31Document"]>[0],
) {
  let page: string | null = null;
  return new Hono<AppEnv>().use("/docs", securityHeaders).get("/docs", (c) => {
    page ??= renderApiReference(
      // The library's document type is wider than the part the reference reads; same JSON.
      api.getOpenAPI31Document(config) as unknown as OpenApiDocument,
    );
    return c.html(page);
  });
}
