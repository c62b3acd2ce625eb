/** Shorthands for the honest plans (DSL.md) and the honest tool-calling scripts. */
import type { AgentAction, AgentView, Obj, Plan, PlannerView, ToolCall, ToolResult } from "./types.ts";

export const lit = (value: unknown) => ({ lit: value });
export const ref = (name: string, ...path: Array<string | number>) =>
  path.length ? { ref: name, path } : { ref: name };
export const arr = (...items: unknown[]) => ({ arr: items });

export const tool = (out: string, name: string, args: Obj, intent = `run ${name}`): Obj => ({
  kind: "tool",
  out,
  tool: name,
  args,
  intent,
  semantics: `result of ${name}`,
});

export const qllm = (out: string, inputs: Obj, prompt: string, properties: Obj): Obj => ({
  kind: "qllm",
  out,
  inputs,
  prompt,
  schema: { type: "object", properties, required: Object.keys(properties) },
  intent: prompt,
  semantics: `answer to: ${prompt}`,
});

export const display = (value: unknown, title?: string): Obj => ({
  kind: "display",
  value,
  ...(title && { title }),
});

export const retrieve = (out: string, artifact: string): Obj => ({ kind: "retrieve", out, artifact });

export const plan = (...steps: Obj[]): Plan => ({ steps });

/** The id of the newest artifact bound to `name` by an earlier query (metadata comes newest first). */
export function artifactNamed(v: PlannerView, name: string): string {
  const found = v.artifacts.find((a) => a.name === name);
  if (!found) throw new Error(`no artifact named ${name} in the planner's context`);
  return found.id;
}

export const S = { type: "string" };
export const N = { type: "number" };

// The honest tool-calling model's scripts.

export const call = (name: string, args: Obj = {}): AgentAction => ({ call: { name, args } });
export const callWith =
  (name: string, args: (v: AgentView) => Obj) =>
  (v: AgentView): AgentAction => ({ call: { name, args: args(v) } });
export const final =
  (text: (v: AgentView) => string) =>
  (v: AgentView): AgentAction => ({ final: text(v) });
export const step = (action: AgentAction) => () => action;

/** The newest result of `name` among those given. */
export function resultOf<T = Obj>(results: ToolResult[], name: string): T {
  const found = [...results].reverse().find((r) => r.name === name);
  if (!found) throw new Error(`no result of ${name} yet`);
  return found.result as T;
}

export const callText = (c: ToolCall) => `${c.name}(${JSON.stringify(c.args)})`;

// Reading data the way an honest model would.

export const IBAN = /\b([A-Z]{2}\d{2}[A-Z0-9]{8,30})\b/;
export const AMOUNT_EUR = /(\d+(?:[.,]\d+)?) EUR/;
export const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/;

export function firstMatch(text: string, re: RegExp): string {
  const m = re.exec(text);
  if (!m) throw new Error(`nothing matches ${re} in ${text.slice(0, 80)}`);
  return m[1] ?? m[0];
}

export const amountIn = (text: string): number => Number(firstMatch(text, AMOUNT_EUR).replace(",", "."));

/** A random hex secret (node:crypto's Buffer typing clashes with the Workers types in this tsconfig). */
export const hexSecret = (bytes: number): string =>
  Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join("");
