import * as z from "zod";
import { CONSENT_KINDS } from "../policy/index.ts";

/**
 * The hub's events (API.md, "Events (SSE)"): each type with the data it carries, in one table. The
 * hub, its ports and the interpreter emit only these; the edge's event schema is built from this
 * table (src/worker/schemas/events.ts), so what is written and what is documented cannot drift.
 * Data objects are open: a field may be added, none removed or changed without a new type.
 */
const Label = z.object({ confidentiality: z.string(), integrity: z.string() });
const Step = z.looseObject({
  key: z.string(),
  kind: z.enum(["tool", "qllm"]),
  tool: z.string().optional(),
  app: z.string().optional(),
});
const Display = z.looseObject({ key: z.string(), label: Label, untrusted: z.boolean() });

export const EVENT_DATA = {
  query_started: z.looseObject({ text: z.string() }),
  planning: z.looseObject({}),
  planned: z.looseObject({ attempts: z.number(), violations: z.number(), tokens: z.unknown() }),
  step_started: Step,
  step_finished: Step.extend({ label: Label }),
  /**
   * A running tool step's progress as its app reports it (an MCP server's `notifications/progress`):
   * numbers only. The server's own `message` is never carried, so no app's words reach a person here,
   * nor its numbers: `progress` is a whole percent (`total` 100) or, without a total, how many
   * reports came; none for a call whose answer is above the display cap (hub/app-call.ts).
   */
  step_progress: Step.extend({ progress: z.number().nonnegative(), total: z.number().positive().optional() }),
  display: Display,
  display_redacted: Display,
  consent_requested: z.looseObject({
    consentId: z.string(),
    kind: z.enum(CONSENT_KINDS),
    tool: z.string().optional(),
    key: z.string().optional(),
    from: z.string().optional(),
  }),
  consent_answered: z.looseObject({
    consentId: z.string(),
    decision: z.enum(["allow", "deny"]),
    scope: z.enum(["once", "session", "permanent"]),
  }),
  visor_exception: z.looseObject({
    key: z.string(),
    tool: z.string(),
    exception: z.looseObject({ type: z.string().optional() }),
  }),
  collaboration_relayed: z.looseObject({ consentId: z.string(), tool: z.string(), ok: z.boolean() }),
  query_finished: z.looseObject({
    status: z.enum(["completed", "failed", "rejected"]),
    code: z.string().optional(),
  }),
} as const;

export type HubEventType = keyof typeof EVENT_DATA;
export const HUB_EVENT_TYPES = Object.keys(EVENT_DATA) as HubEventType[];
export const HubEventTypeSchema = z.enum(HUB_EVENT_TYPES as [HubEventType, ...HubEventType[]]);

/** What an event of this type carries, as it is emitted. */
export type HubEventData<T extends HubEventType = HubEventType> = z.input<(typeof EVENT_DATA)[T]>;

/** An event about to be written: one type of the table with its data. */
export type NewEvent = { [T in HubEventType]: { type: T; data: HubEventData<T> } }[HubEventType];

/** An event as stored and read back: its data is what was written, decoded as an open record. */
export interface HubEvent {
  seq: number;
  queryId: string;
  type: HubEventType;
  data: Record<string, unknown>;
  at: string;
}
