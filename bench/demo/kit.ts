/**
 * The demo's worlds: a tenant with demo apps approved (test/worker/hub-kit.ts), whose planner and
 * q-LLM are the SCRIPTED, OBEDIENT model: answers defined as data, which repeat any injected
 * instruction they are shown. It stands in for the worst case the design assumes (an LLM that obeys
 * everything it reads); it is never a live model, and the demo says so.
 */
import { expect } from "vitest";
import type { ScriptEntry } from "../../src/llm/types.ts";
import { api } from "../../test/worker/helpers.ts";
import { type HubWorld, hubWorld } from "../../test/worker/hub-kit.ts";

export const MODEL_NAME = "obedient";

export async function scriptedWorld(
  apps: string[],
  policy: Record<string, unknown>,
  script: { planner: unknown; qllm?: Array<{ when?: string; respond: unknown }> },
  clearances: Record<string, string> = {},
): Promise<HubWorld> {
  const w = await hubWorld(apps, policy, clearances);
  const entries: ScriptEntry[] = [
    { role: "planner", respond: script.planner },
    ...(script.qllm ?? []).map((e) => ({ role: "qllm" as const, ...e })),
  ];
  // hubWorld points the models at the fake OpenAI server; the demo uses the scripted provider instead,
  // which names itself "scripted:obedient" in every trace.
  const put = await api("PUT", "/v1/admin/policy", {
    key: w.tenant.adminKey,
    body: {
      planning: { mode: "apps" },
      ...policy,
      models: { default: { provider: "scripted", model: MODEL_NAME, script: entries } },
    },
  });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  return w;
}

/** A value for the narrative, shortened: strings in quotes, anything else as JSON. */
export function quote(value: unknown, max = 140): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const short = text.length > max ? `${text.slice(0, max - 1)}…` : text;
  return typeof value === "string" ? `"${short}"` : short;
}

/** A consent's warning, as Lattice wrote it: its distinct reasons, one line each. */
export const warning = (list: readonly string[]) => [...new Set(list)].map((r) => `hub's warning: ${r}`);
