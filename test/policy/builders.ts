/** Terse plan builders for tests (plain JSON, as a planner would write it). */

export type Json = string | number | boolean | null | Json[] | { [k: string]: Json };

export const lit = (v: Json): Json => ({ lit: v });
export const ref = (name: string, ...path: (string | number)[]): Json =>
  path.length ? { ref: name, path } : { ref: name };

export const tool = (out: string, name: string, args: Record<string, Json>): Record<string, Json> => ({
  kind: "tool",
  out,
  tool: name,
  args,
  intent: "test intent",
  semantics: "test result",
});

export const qllm = (out: string, inputs: Record<string, Json>): Record<string, Json> => ({
  kind: "qllm",
  out,
  inputs,
  prompt: "Summarise the inputs.",
  schema: { type: "object", properties: { v: { type: "string" } } },
  intent: "test intent",
  semantics: "test result",
});

export const retrieve = (out: string, artifact: string): Json => ({ kind: "retrieve", out, artifact });
export const display = (value: Json, title?: string): Record<string, Json> =>
  title === undefined ? { kind: "display", value } : { kind: "display", value, title };
export const cond = (pred: Json, then: Json[], otherwise: Json[] = []): Json => ({
  kind: "condition",
  if: pred,
  then,
  else: otherwise,
});
export const loop = (
  over: Json,
  as: string,
  body: Json[],
  collect?: Json,
  out?: string,
): Record<string, Json> => ({
  kind: "loop",
  over,
  as,
  body,
  ...(collect === undefined ? {} : { collect }),
  ...(out === undefined ? {} : { out }),
});
export const eq = (left: Json, right: Json): Json => ({ op: "eq", left, right });
export const plan = (...steps: Json[]): { steps: Json[] } => ({ steps });

/** A `select` step; `by` and `where` only when given (pick "all" has no `by`). */
export const select = (
  out: string,
  over: Json,
  pick: "min" | "max" | "asc" | "desc" | "all",
  by?: (string | number)[],
  where?: { path: (string | number)[]; equals: Json }[],
): Record<string, Json> => ({
  kind: "select",
  out,
  over,
  ...(where === undefined ? {} : { where }),
  ...(by === undefined ? {} : { by }),
  pick,
});
