/**
 * The small toolkit every demo app is written with: an app is its seed state, its operations
 * (manifest entry + handler side by side) and a description. The world Durable Object does the rest:
 * signature check, idempotency, request validation against the declared schema, persistence.
 * Nothing here imports `cloudflare:*`, so manifests can be built from Node scripts too.
 */
import type { FunctionalityInput, HttpManifestInput } from "../../../src/apps/manifest.ts";

export type Schema = Record<string, unknown>;

/** An error answer: HTTP status plus a machine-readable code. */
export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export const notFound = (what: string, id: string): AppError =>
  new AppError(404, "not_found", `no ${what} with id ${JSON.stringify(id)}`);
export const badInput = (message: string): AppError => new AppError(400, "bad_request", message);

/** A reply written byte for byte, for the misbehave fixture's non-JSON and error answers. */
export interface RawReply {
  raw: true;
  status: number;
  contentType: string;
  body: string;
}
export const rawReply = (status: number, contentType: string, body: string): RawReply => ({
  raw: true,
  status,
  contentType,
  body,
});
export const isRawReply = (v: unknown): v is RawReply =>
  typeof v === "object" && v !== null && (v as { raw?: unknown }).raw === true;

export interface CallContext {
  /** When the call arrived. */
  now: Date;
  /** The ephemeral call id Lattice sent in X-Lattice-Call, if any. */
  callId: string | null;
}

/**
 * One functionality. `run` mutates `state` in place and returns the JSON answer (or a RawReply); it is
 * synchronous so a call's read-modify-write of the world cannot interleave with another call's.
 * Throwing discards the state changes. `delayMs` makes the world answer late (simulated latency).
 */
export interface Op<S> extends Omit<FunctionalityInput, "name"> {
  delayMs?: number;
  run(state: S, input: Record<string, unknown>, ctx: CallContext): unknown;
}

/** Declares an operation whose handler sees a typed input. */
export function op<S, I>(
  def: Omit<Op<S>, "run"> & { run: (state: S, input: I, ctx: CallContext) => unknown },
): Op<S> {
  // The world validates the body against `def.request` before `run`, so the schema vouches for I.
  return { ...def, run: (state, input, ctx) => def.run(state, input as I, ctx) };
}

export interface DemoApp<S> {
  name: string;
  /** Natural-language description for an LLM (the manifest's `description`). */
  description: string;
  version: string;
  seed(): S;
  ops: Record<string, Op<S>>;
  /**
   * An agentic app: Lattice's spoke runs the app's own model with these instructions; the model
   * works through the internal `tools` (endpoints like any op), only those each functionality `uses`.
   */
  agent?: { instructions: string; tools: Record<string, Op<S>>; uses: Record<string, string[]> };
}

/** The handler named `name`: a functionality, or an agentic app's internal tool. */
export function handlerOf<S>(app: DemoApp<S>, name: string): Op<S> | undefined {
  if (Object.hasOwn(app.ops, name)) return app.ops[name];
  return app.agent && Object.hasOwn(app.agent.tools, name) ? app.agent.tools[name] : undefined;
}

/** The app's manifest, as a developer would submit it to Lattice. */
export function manifestOf(app: DemoApp<unknown>, endpoint: string): HttpManifestInput {
  return {
    name: app.name,
    description: app.description,
    version: app.version,
    endpoint,
    functionalities: Object.entries(app.ops).map(([name, { run: _run, delayMs: _delay, ...spec }]) => ({
      name,
      ...spec,
    })),
    ...(app.agent && {
      agent: {
        instructions: app.agent.instructions,
        tools: Object.entries(app.agent.tools).map(([name, tool]) => ({
          name,
          description: tool.description,
          parameters: tool.request,
          irreversible: tool.irreversible ?? false,
          ...(tool.destinations && { destinations: tool.destinations }),
        })),
        functionalities: app.agent.uses,
      },
    }),
  };
}

// JSON Schema shorthands, so manifests read like the data they describe.

/** A closed object; every property is required unless listed in `optional`. */
export const obj = (properties: Record<string, Schema>, optional: string[] = []): Schema => ({
  type: "object",
  properties,
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
  additionalProperties: false,
});
export const str = (description: string, extra: Schema = {}): Schema => ({
  type: "string",
  description,
  ...extra,
});
export const num = (description: string, extra: Schema = {}): Schema => ({
  type: "number",
  description,
  ...extra,
});
export const int = (description: string, extra: Schema = {}): Schema => ({
  type: "integer",
  description,
  ...extra,
});
export const bool = (description: string): Schema => ({ type: "boolean", description });
export const arr = (items: Schema, description?: string): Schema => ({
  type: "array",
  items,
  ...(description ? { description } : {}),
});
export const date = (description: string): Schema => str(description, { pattern: "^\\d{4}-\\d{2}-\\d{2}$" });

/** Money is kept in cents internally and shown in units with two decimals. */
export const toCents = (amount: number): number => Math.round(amount * 100);
export const fromCents = (cents: number): number => cents / 100;

/** Next id from a counter kept in the state (ids stay stable across replays of a world). */
export function nextId(state: { nextId: number }, prefix: string): string {
  const id = `${prefix}${state.nextId}`;
  state.nextId += 1;
  return id;
}
