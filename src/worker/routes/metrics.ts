import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { callCounts } from "../../objects/call-counts.ts";
import type { AppEnv } from "../env.ts";
import { notFound } from "../errors.ts";
import { requireOperator } from "../middleware/auth/index.ts";
import { authErrors, jsonResponse, notFoundError } from "../schemas/common.ts";

/** The performance bench's view of Durable Object calls (only where LATTICE_COUNT_CALLS is on). */
const calls = createRoute({
  method: "get",
  path: "/calls",
  tags: ["operator"],
  summary: "Durable Object calls by class and method in this isolate (bench only: LATTICE_COUNT_CALLS=on)",
  security: [{ operator: [] }],
  responses: {
    200: jsonResponse(
      z.object({ calls: z.record(z.string(), z.number()) }),
      "Counts since the isolate started",
    ),
    ...authErrors,
    ...notFoundError,
  },
});

const base = new OpenAPIHono<AppEnv>();
base.use(requireOperator);

export const metricsRoutes = base.openapi(calls, (c) => {
  if (c.env.LATTICE_COUNT_CALLS !== "on") throw notFound("metrics");
  return c.json({ calls: callCounts() }, 200);
});
