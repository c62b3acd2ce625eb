import { z } from "@hono/zod-openapi";
import { CONSENT_KINDS } from "../../policy/index.ts";

/**
 * The hub's events (API.md, "Events (SSE)") as a contract: each `type` with the `data` it carries.
 * Data objects are open: a field may be added, none removed or changed without a new type.
 */
const Label = z.object({ confidentiality: z.string(), integrity: z.string() });
const step = z.looseObject({
  key: z.string(),
  kind: z.enum(["tool", "qllm"]),
  tool: z.string().optional(),
  app: z.string().optional(),
});

const event = <T extends string, D extends z.ZodType>(type: T, data: D) =>
  z.object({ seq: z.number(), queryId: z.string(), type: z.literal(type), data, at: z.string() });

export const EventSchema = z
  .discriminatedUnion("type", [
    event("query_started", z.looseObject({ text: z.string() })),
    event("planning", z.looseObject({})),
    event("planned", z.looseObject({ attempts: z.number(), violations: z.number(), tokens: z.unknown() })),
    event("step_started", step),
    event("step_finished", step.extend({ label: Label })),
    event("display", z.looseObject({ key: z.string(), label: Label, untrusted: z.boolean() })),
    event("display_redacted", z.looseObject({ key: z.string(), label: Label, untrusted: z.boolean() })),
    event(
      "consent_requested",
      z.looseObject({
        consentId: z.string(),
        kind: z.enum(CONSENT_KINDS),
        tool: z.string().optional(),
        key: z.string().optional(),
        from: z.string().optional(),
      }),
    ),
    event(
      "consent_answered",
      z.looseObject({
        consentId: z.string(),
        decision: z.enum(["allow", "deny"]),
        scope: z.enum(["once", "session", "permanent"]),
      }),
    ),
    event(
      "visor_exception",
      z.looseObject({
        key: z.string(),
        tool: z.string(),
        exception: z.looseObject({ type: z.string().optional() }),
      }),
    ),
    event(
      "collaboration_relayed",
      z.looseObject({ consentId: z.string(), tool: z.string(), ok: z.boolean() }),
    ),
    event(
      "query_finished",
      z.looseObject({ status: z.enum(["completed", "failed", "rejected"]), code: z.string().optional() }),
    ),
  ])
  .openapi("Event", {
    description: "One hub event; on a stream sent as `id: <seq>`, `event: <type>`, `data: <this>`",
  });

/** An event stream's response: the content type with the schema of each event's data line. */
export const eventStreamResponse = (description: string) => ({
  description,
  content: { "text/event-stream": { schema: EventSchema } },
});
