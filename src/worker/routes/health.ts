import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { jsonResponse } from "../schemas/common.ts";

const health = createRoute({
  method: "get",
  path: "/healthz",
  tags: ["meta"],
  summary: "Liveness",
  responses: { 200: jsonResponse(z.object({ ok: z.literal(true), mode: z.string() }), "Alive") },
});

export const healthRoutes = new OpenAPIHono<AppEnv>().openapi(health, (c) =>
  c.json({ ok: true as const, mode: c.env.LATTICE_MODE === "dev" ? "dev" : "production" }, 200),
);
