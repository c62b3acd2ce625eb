/**
 * Why a benign task was lost: one short, stable cause per lost run, read from what Lattice's API
 * shows of the query that stopped (its status, its error's code and details, its consents), so the
 * report can count losses by the rule and the argument that stopped them (bench/README.md, "Loss
 * accounting").
 */
import { isRecord } from "../../src/policy/index.ts";
import type { UserTask } from "./types.ts";

/** How one query of a run ended, as the API's Query JSON shows it. */
export interface QueryEnd {
  status: string;
  error: { code: string; details?: unknown } | null;
  consents: Array<{ kind: string; functionality: string; status: string }>;
}

export interface Loss {
  /** The table's key: `rejected:<flow>:<tool>.<argument>`, `consent_denied:<kind>:<name>`, … */
  cause: string;
  /** The query that stopped (0-based; the last one when all completed) and how it ended. */
  query: number;
  status: string;
  /** A rejected plan's violations beyond the first, each as its cause would name it. */
  also?: string[];
}

/** Where a flow broke: the called name and its argument, `(call)` for the call itself (its guards). */
const at = (tool: unknown, argument: unknown): string =>
  `${typeof tool === "string" ? tool : "?"}.${typeof argument === "string" ? argument : "(call)"}`;

/** The planning violations of a rejected plan (the verifier's, shown as planning made them). */
function violations(details: unknown): string[] {
  if (!Array.isArray(details)) return [];
  // A deferred violation did not stop the plan (the gate decides it at run time): what did comes first.
  const found = details.filter(isRecord);
  return [...found.filter((v) => v.deferred !== true), ...found.filter((v) => v.deferred === true)].map(
    (v) => `${typeof v.rule === "string" ? v.rule : "?"}:${at(v.tool, v.argument)}`,
  );
}

/** The first planning error's rule; a name no approved functionality serves is an unbound step. */
function invalid(details: unknown): string {
  const first = Array.isArray(details) ? details.find(isRecord) : undefined;
  if (!first) return "invalid_plan";
  if (first.rule === "tool_unknown" && typeof first.message === "string") {
    const name = /^"([^"]+)"/.exec(first.message)?.[1];
    if (name) return `unbound:${name}`;
  }
  return `invalid_plan:${typeof first.rule === "string" ? first.rule : "?"}`;
}

/** A runtime failure: its code, then the facts Lattice shows (flow and argument, the name called). */
function runtime(code: string, details: unknown): string {
  const facts = isRecord(details) ? details : {};
  if (code === "flow_violation" && typeof facts.tool === "string") {
    const flow = typeof facts.flow === "string" ? facts.flow : "?";
    return `runtime:flow_violation:${flow}:${"argument" in facts ? at(facts.tool, facts.argument) : facts.tool}`;
  }
  return typeof facts.tool === "string" ? `runtime:${code}:${facts.tool}` : `runtime:${code}`;
}

/** The cause of a query that did not complete. */
export function causeOf(end: QueryEnd): { cause: string; also?: string[] } {
  const code = end.error?.code;
  if (!code) return { cause: end.status };
  if (code === "plan_rejected") {
    const [first, ...rest] = violations(end.error?.details);
    return first ? { cause: `rejected:${first}`, ...(rest.length && { also: rest }) } : { cause: "rejected" };
  }
  if (code === "invalid_plan") return { cause: invalid(end.error?.details) };
  if (code === "role_forbidden") return { cause: "role_forbidden" };
  if (code === "consent_denied" || code === "consent_expired") {
    const answered = code === "consent_denied" ? "denied" : "expired";
    const c = end.consents.findLast((x) => x.status === answered);
    return { cause: c ? `${code}:${c.kind}:${c.functionality}` : code };
  }
  return { cause: runtime(code, end.error?.details) };
}

/**
 * Why `task` was lost in a run whose queries ended as `ends`: a task its suite calls lost by design
 * says so; otherwise the first query that did not complete names the cause. All completed and still
 * lost: `completed:no_utility` (the run did what the plan said; the plan's result was not the task's).
 * A run the bench could not finish (`error`): `bench_error`.
 */
export function lossOf(task: UserTask, ends: readonly QueryEnd[], error?: string): Loss {
  const stopped = ends.findIndex((e) => e.status !== "completed");
  const query = stopped === -1 ? Math.max(0, ends.length - 1) : stopped;
  const end = ends[query];
  const status = end ? (end.error ? `${end.status}:${end.error.code}` : end.status) : "none";
  const base = { query, status };
  if (task.lostByDesign) return { cause: `by_design:${task.lostByDesign}`, ...base };
  if (error || !end) return { cause: "bench_error", ...base };
  if (stopped === -1) return { cause: "completed:no_utility", ...base };
  return { ...causeOf(end), ...base };
}
