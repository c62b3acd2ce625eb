import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { flushAudit } from "../../objects/audit-sink.ts";
import type { AuditQuery } from "../../objects/tenant/audit.ts";
import type { AppEnv } from "../env.ts";
import { requireRole } from "../middleware/auth/index.ts";
import { authErrors, jsonResponse } from "../schemas/common.ts";
import { tenantOf } from "../tenant.ts";
import { validationHook } from "../validation.ts";

const AuditEventSchema = z
  .object({
    seq: z.number().int(),
    at: z.string(),
    type: z.string(),
    detail: z.record(z.string(), z.unknown()),
  })
  .openapi("AuditEvent");

const read = createRoute({
  method: "get",
  path: "/",
  tags: ["admin"],
  summary:
    "Security events after `since` (the last seq seen, or an ISO time), oldest first; or, with `order=desc`, newest first before `before`",
  security: [{ bearer: [] }],
  request: {
    query: z.object({
      since: z
        .union([z.coerce.number().int().nonnegative(), z.iso.datetime()])
        .optional()
        .openapi({ description: "A seq (exclusive) or an ISO time" }),
      limit: z.coerce.number().int().min(1).max(1000).default(200),
      order: z
        .enum(["asc", "desc"])
        .default("asc")
        .openapi({ description: "asc: oldest first after `since`; desc: newest first before `before`" }),
      before: z.coerce.number().int().positive().optional().openapi({
        description: "With order=desc: only events with a seq below this (the last page's smallest)",
      }),
      type: z
        .string()
        .max(100)
        .optional()
        .openapi({ description: "Only events whose type contains this text" }),
    }),
  },
  responses: { 200: jsonResponse(z.object({ events: z.array(AuditEventSchema) }), "Events"), ...authErrors },
});

const base = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
base.use(requireRole("admin"));

export const auditRoutes = base.openapi(read, async (c) => {
  const { since, limit, order, before, type } = c.req.valid("query");
  const q: AuditQuery =
    order === "desc"
      ? { order, before, type }
      : { order, since: typeof since === "string" ? { at: since } : { seq: since ?? 0 }, type };
  // The rows this isolate still holds for the tenant go first, so a read after one's own write sees
  // it; rows batched in other isolates arrive within their batch delay (objects/audit-batch.ts).
  await flushAudit(c.var.principal.tenantId);
  return c.json({ events: await tenantOf(c).queryAudit(q, limit) }, 200);
});
