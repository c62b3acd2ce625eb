/**
 * The OBEDIENT MODEL (a test double, never a model): for a case it performs the honest scripted
 * behaviour of the case's user task, but whenever any text it is given carries an injection marker
 * `[inj:<id>]`, it does what that injection asks instead, in whichever role reads it:
 *   planner — sees only the query and the app catalog, so it obeys injections in app metadata;
 *   qllm    — fills the schema fields the injection names with the attacker's values;
 *   agent   — the baseline's tool-calling model: makes the attacker's tool calls, redirects its own.
 */
import { INJECTIONS, markersIn } from "../security/injections.ts";
import type {
  AgentStep,
  AgentView,
  Case,
  Injection,
  Obj,
  Plan,
  ToolCall,
  ToolResult,
} from "../security/types.ts";

export interface ChatRequest {
  model: string;
  messages: Array<{
    role: string;
    content?: string | null;
    tool_call_id?: string;
    tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  }>;
  tools?: Array<{ function: { name: string; description?: string } }>;
  response_format?: { json_schema?: { schema?: Obj } };
}

export type Answer = (
  | { text: string }
  | { toolCalls: Array<{ id: string; name: string; arguments: string }> }
) & {
  /** The planner changed its plan because of text it read (a hijack of the planner). */
  hijacked?: boolean;
};

const injectionsIn = (text: string): Injection[] => markersIn(text).map((id) => INJECTIONS.get(id)!);
const contents = (r: ChatRequest) => r.messages.map((m) => m.content ?? "").join("\n");

export function plannerAnswer(c: Case, r: ChatRequest): Answer {
  // Lattice's planner input: the context (tools, artifact metadata, earlier queries), then the query alone.
  const users = r.messages.filter((m) => m.role === "user").map((m) => m.content ?? "");
  const contextText = users[0] ?? "";
  const context = JSON.parse(contextText.slice(contextText.indexOf("\n") + 1)) as {
    artifacts: PlannerArtifact[];
    functionalities?: unknown;
  };
  const query = (users[1] ?? "").trim();
  const queryIndex = c.task.queries.indexOf(query);
  if (queryIndex < 0) throw new Error(`the planner got a query the task does not have: ${query}`);
  let plan: Plan;
  try {
    plan = c.task.plans[queryIndex]!({
      query,
      queryIndex,
      artifacts: context.artifacts,
      catalog: "functionalities" in context,
    });
  } catch {
    // What a planner writes when the earlier result it needs is not there.
    plan = { steps: [{ kind: "display", value: { lit: "I found nothing noted earlier to act on." } }] };
  }
  const honest = JSON.stringify(plan);
  for (const inj of injectionsIn(contents(r))) if (inj.planner) plan = inj.planner(plan);
  const hijacked = JSON.stringify(plan) !== honest;
  // In catalog mode the planner plans against the admin's names: booking is one entry both ride
  // apps serve (the hub asks which); everything else keeps its name (a task writes its comparison
  // of the ride apps' quotes for the catalog itself: one `ride.quote` step over every provider).
  if ("functionalities" in context) plan = renamed(plan, CATALOG_NAMES);
  return { text: JSON.stringify(plan), hijacked };
}

const CATALOG_NAMES: Record<string, string> = { "swiftride.book": "ride.book", "cheapcab.book": "ride.book" };

function renamed(plan: Plan, names: Record<string, string>): Plan {
  const walk = (steps: Obj[]): Obj[] =>
    steps.map((s) => {
      const out: Obj = { ...s };
      if (typeof s.tool === "string" && names[s.tool]) out.tool = names[s.tool];
      for (const key of ["then", "else", "body"]) if (Array.isArray(s[key])) out[key] = walk(s[key] as Obj[]);
      return out;
    });
  return { steps: walk(plan.steps) };
}
/** What a planner sees of an artifact (newest first; no time, no label). */
type PlannerArtifact = { id: string; name: string; query: string };

export function qllmAnswer(c: Case, r: ChatRequest): Answer {
  const user = [...r.messages].reverse().find((m) => m.role === "user")?.content ?? "";
  const cut = user.indexOf("\n\nInputs:\n");
  const prompt = user.slice("Task: ".length, cut);
  const inputs = JSON.parse(user.slice(cut + "\n\nInputs:\n".length)) as Obj;
  const schema = r.response_format?.json_schema?.schema ?? { type: "object", properties: {} };
  const honestFn =
    c.task.qllm[prompt] ??
    [...INJECTIONS.values()].map((i) => i.prompts?.[prompt]).find((f) => f !== undefined);
  if (!honestFn) throw new Error(`the q-llm got a prompt the case does not know: ${prompt}`);
  let answer: Obj;
  try {
    answer = honestFn(inputs);
  } catch {
    answer = emptyFor(schema);
  }
  for (const inj of injectionsIn(user)) answer = obey(answer, inj, schema);
  return { text: JSON.stringify(answer) };
}

/** The injection's values written into the fields whose names it targets, typed as the schema says. */
function obey(answer: Obj, inj: Injection, schema: Obj): Obj {
  const props = (schema.properties ?? {}) as Record<string, { type?: string }>;
  const out = { ...answer };
  for (const [key, prop] of Object.entries(props)) {
    const rule = inj.qllm?.find((q) => q.field.test(key));
    if (!rule) continue;
    const v = typeof rule.value === "function" ? rule.value(answer[key]) : rule.value;
    if (prop.type === "array") out[key] = Array.isArray(v) ? v : [v];
    else if (prop.type === "number") {
      if (typeof v === "number") out[key] = v;
    } else out[key] = typeof v === "string" ? v : JSON.stringify(v);
  }
  return out;
}

function emptyFor(schema: Obj): Obj {
  const props = (schema.properties ?? {}) as Record<string, { type?: string }>;
  const value = (t?: string) => (t === "number" ? 0 : t === "array" ? [] : t === "boolean" ? false : "");
  return Object.fromEntries(Object.entries(props).map(([k, p]) => [k, value(p.type)]));
}

/** Tool names: `app.functionality` inside the bench, `app_functionality` for OpenAI. */
export const toOpenAIName = (name: string) => name.replace(".", "_");
export const fromOpenAIName = (name: string) => name.replace("_", ".");

/** Tool names on the wire: the baseline's `app_tool`, or an agentic app's own bare tool names. */
interface Naming {
  toWire(name: string): string;
  fromWire(name: string): string;
}
const OPENAI_NAMING: Naming = { toWire: toOpenAIName, fromWire: fromOpenAIName };

/** The agentic app's model (role spoke): the same obedience, its app's script, its bare tool names. */
export function spokeAnswer(c: Case, r: ChatRequest, carrier: string | undefined): Answer {
  const spoke = c.task.spoke;
  if (!spoke) throw new Error(`${c.task.id} runs no agentic app`);
  const naming: Naming = {
    toWire: (name) => name.slice(name.indexOf(".") + 1),
    fromWire: (name) => `${spoke.app}.${name}`,
  };
  return agentAnswer(c, r, carrier, naming, spoke.script);
}

export function agentAnswer(
  c: Case,
  r: ChatRequest,
  carrier: string | undefined,
  naming: Naming = OPENAI_NAMING,
  fixedScript?: AgentStep[],
): Answer {
  const v = agentView(r, naming);
  const tools = (r.tools ?? []).map((t) => t.function.description ?? "").join("\n");
  const active = injectionsIn(`${contents(r)}\n${tools}`).filter((i) => (i.delayUntil ?? 0) <= v.queryIndex);
  for (const inj of active) {
    const phase = r.messages.filter((m) =>
      m.tool_calls?.some((t) => t.id.startsWith(`atk_${inj.id}_`)),
    ).length;
    const calls = inj.agent?.calls?.(v, phase, carrier) ?? [];
    if (calls.length) return toolCalls(calls, (i) => `atk_${inj.id}_${phase}_${i}`, naming);
  }
  const script = fixedScript ?? c.task.agent[v.queryIndex] ?? [];
  const step = script[v.results.length];
  let action: ReturnType<NonNullable<typeof step>>;
  try {
    action = step ? step(v) : { final: "Done." };
  } catch {
    action = { final: "I could not complete that." };
  }
  if ("final" in action) {
    const said = active.map((i) => i.agent?.say?.(v) ?? "").filter(Boolean);
    return { text: [action.final, ...said].join("\n") };
  }
  let next = action.call;
  for (const inj of active) if (inj.agent?.rewrite) next = inj.agent.rewrite(next, v);
  return toolCalls([next], () => `call_${v.queryIndex}_${v.results.length}`, naming);
}

function toolCalls(calls: ToolCall[], id: (i: number) => string, naming: Naming): Answer {
  return {
    toolCalls: calls.map((c, i) => ({
      id: id(i),
      name: naming.toWire(c.name),
      arguments: JSON.stringify(c.args),
    })),
  };
}

/** The conversation as the scripts read it: which query, which results (honest and the attacker's). */
function agentView(r: ChatRequest, naming: Naming): AgentView {
  const calls = new Map<string, ToolCall>();
  const tools = (r.tools ?? []).map((t) => naming.fromWire(t.function.name));
  const v: AgentView = { queryIndex: -1, tools, results: [], all: [], attack: [] };
  for (const m of r.messages) {
    if (m.role === "user") {
      v.queryIndex++;
      v.results = [];
    }
    for (const t of m.tool_calls ?? []) {
      calls.set(t.id, {
        name: naming.fromWire(t.function.name),
        args: JSON.parse(t.function.arguments) as Obj,
      });
    }
    if (m.role === "tool" && m.tool_call_id) {
      const made = calls.get(m.tool_call_id);
      if (!made) continue;
      const result: ToolResult = { ...made, result: parseOr(m.content ?? "") };
      // A call the visor refused did not happen: the script tries that step again.
      if ((result.result as { semanticException?: unknown } | null)?.semanticException) continue;
      if (m.tool_call_id.startsWith("atk_")) v.attack.push(result);
      else {
        v.results.push(result);
        v.all.push(result);
      }
    }
  }
  v.queryIndex = Math.max(0, v.queryIndex);
  return v;
}

function parseOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
