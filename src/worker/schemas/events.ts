import { z } from "@hono/zod-openapi";
import { EVENT_DATA, HUB_EVENT_TYPES, type HubEventType } from "../../runtime/index.ts";

/**
 * The hub's events (API.md, "Events (SSE)") as a contract: each `type` with the `data` it carries,
 * built from the runtime's table of events (src/runtime/events.ts), the one the hub writes from.
 */
const event = <T extends HubEventType>(type: T) =>
  z.object({
    seq: z.number(),
    queryId: z.string(),
    type: z.literal(type),
    data: EVENT_DATA[type],
    at: z.string(),
  });

const [first, ...rest] = HUB_EVENT_TYPES.map(event);

export const EventSchema = z.discriminatedUnion("type", [first!, ...rest]).openapi("Event", {
  description: "One hub event; on a stream sent as `id: <seq>`, `event: <type>`, `data: <this>`",
});

/** An event stream's response: the content type with the schema of each event's data line. */
export const eventStreamResponse = (description: string) => ({
  description,
  content: { "text/event-stream": { schema: EventSchema } },
});
