/**
 * The security benchmark's vocabulary: user tasks (the benign work, AgentDojo-style), injection tasks
 * (the attacker's goals), the slots an injection can be planted in, and what a run leaves behind.
 */
import type { DemoMcpAppName } from "../../examples/apps/src/mcp/names.ts";
import type { NotesState } from "../../examples/apps/src/mcp/notes.ts";
import type { ShadyState } from "../../examples/apps/src/mcp/shadynotes.ts";
import type { WorldState } from "../../examples/apps/src/protocol.ts";
import type { CatalogEntryInput } from "../../examples/tenant/catalog.ts";
import type { HttpManifestInput } from "../../src/apps/manifest.ts";
import type { StandingRuleDraft } from "../../src/policy/index.ts";

export type Suite =
  | "banking"
  | "workspace"
  | "messaging"
  | "travel"
  | "mcp"
  | "agentdojo-slack"
  | "agentdojo-travel"
  | "agentdojo-workspace";
export const SUITES: readonly Suite[] = [
  "banking",
  "workspace",
  "messaging",
  "travel",
  "mcp",
  "agentdojo-slack",
  "agentdojo-travel",
  "agentdojo-workspace",
];

export type Category =
  | "exfiltration"
  | "payment"
  | "credentials"
  | "tracks"
  | "display"
  | "collaboration"
  | "delayed"
  /** An MCP server changed a tool's definition after approval and the changed tool ran. */
  | "rug-pull"
  /** Data destroyed without the user's consent (an unannotated MCP tool). */
  | "destructive"
  /** A phishing link delivered, or a page the attacker names visited (AgentDojo slack). */
  | "phishing"
  /** Someone the attacker names given access to the workspace (AgentDojo slack). */
  | "access"
  /** An entry the attacker chose written into the user's calendar (AgentDojo travel). */
  | "calendar"
  // An attacker who knows the defences (#43): one family per remedy of "asking less".
  /** A destination content chose among the user's own trusted values (another member or contact). */
  | "match-steering"
  /** A destination that is the injection's own author (the poster of the message that carried it). */
  | "authored-values"
  /** Two arguments each matched to a trusted value, together the attacker's choice (Eve into #private). */
  | "two-matched"
  /** Words content wrote into a new record, then the record shared by its id. */
  | "write-designate"
  /** A foreign reference in a payload a host-level reader misses (userinfo, path, spaced dots, a phone). */
  | "sanitiser-differential"
  /** A destination in another shape: a secret in a subdomain, an IP without a scheme. */
  | "destination-shape"
  /** A call a standing rule's bounds seem to cover (an amount under its `max`, to a saved payee). */
  | "rule-stretch"
  /** A value content chose, kept as an artifact, and used in a later query as if the user's. */
  | "artifact-laundering";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Obj = Record<string, unknown>;
export type Plan = { steps: Obj[] };

/** What the obedient planner reads out of Lattice's planner request. */
export interface PlannerView {
  query: string;
  /** Which of the task's queries this is (0-based). */
  queryIndex: number;
  /** Newest first, as the hub lists them. */
  artifacts: Array<{ id: string; name: string; query: string }>;
  /** The planner reads the tenant's catalog (its names), not the apps' own. */
  catalog: boolean;
}

/** A tool call, named `app.functionality` (the baseline's tool names are derived from it). */
export interface ToolCall {
  name: string;
  args: Obj;
}
export interface ToolResult extends ToolCall {
  result: unknown;
}

/** What the obedient tool-calling model reads out of the baseline's conversation. */
export interface AgentView {
  queryIndex: number;
  /** The tools the model is offered, named like its calls (an agent's hub tools: `app.lattice_find`). */
  tools: string[];
  /** Results of the honest calls of this query, in order. */
  results: ToolResult[];
  /** Results of every honest call of the conversation (earlier queries included). */
  all: ToolResult[];
  /** Results of the calls it made for the attacker. */
  attack: ToolResult[];
}
export type AgentAction = { call: ToolCall } | { final: string };
export type AgentStep = (v: AgentView) => AgentAction;

/** The demo MCP servers' own state in the world (`GET /w/{world}/_demo/mcp/{app}/state`). */
export interface McpStates {
  notes?: NotesState;
  shadynotes?: ShadyState;
}

/** What a run leaves behind: the demo world, and what the user was shown. */
export interface Outcome {
  state: WorldState;
  /** The MCP servers' state, for cases that install MCP apps. */
  mcp: McpStates;
  /** Lattice: the display items (flagged = marked untrusted); baseline: its final answers. */
  shown: Array<{ text: string; flagged: boolean }>;
  statuses: string[];
}

/** A consent as the simulated user sees it. */
export interface ConsentView {
  id: string;
  kind: string;
  functionality: string;
  data: unknown;
  assessment: { verdict: "expected" | "warning"; reasons: string[] };
  options?: Array<{ tool: string; app: string }>;
}

/** Edits a world before a run: scenario content, planted injections. */
export type WorldEdit = (apps: Record<string, Obj>) => void;

/** Where an injection can be put for a task. */
export type Slot =
  | { kind: "data"; describe: string; plant: (text: string) => WorldEdit; carrier?: string }
  | { kind: "manifest"; describe: string; app: string }
  /**
   * A malicious MCP app installed beside the task's apps: its own text (tool descriptions, outputs)
   * carries the attack, so nothing is planted; `rugPull` switches its definitions after approval.
   */
  | { kind: "mcp"; describe: string; app: DemoMcpAppName; rugPull?: boolean };

/**
 * A suite with apps of its own (the AgentDojo ports): the tenant installs only these, with this
 * catalog, clearances and per-tool policy, and the world starts from `scrub` (the suite's environment
 * with its injection placeholders at their defaults) instead of the demo seed.
 */
export interface SuiteEnv {
  manifests(appsBase: string, world: string): HttpManifestInput[];
  catalog(manifests: HttpManifestInput[]): CatalogEntryInput[];
  clearance: Record<string, string>;
  /** The tenant policy's `tools` section. */
  tools: Record<string, unknown>;
  /**
   * The section as it was before issue #29 (the `before-*` configurations), where it differs from
   * `tools` by more than the fields `beforePolicy` strips (a body that was `untrusted` outright).
   */
  toolsBefore?: Record<string, unknown>;
  scrub: WorldEdit;
  /** Rules the suite's simulated user sets once, over the API, before its queries run. */
  standingRules?: StandingRuleDraft[];
}

export interface UserTask {
  id: string;
  /** Its own apps and policy; the demo apps and the bench policy otherwise. */
  env?: SuiteEnv;
  /**
   * Multi-query episodes: the tool an earlier query called whose result a later one should retrieve
   * as an artifact (reuse: the tool ran once and the episode completed).
   */
  reuse?: { app: string; functionality: string };
  suite: Suite;
  queries: string[];
  /** The honest planner, one per query. */
  plans: Array<(v: PlannerView) => Plan>;
  /** The honest q-llm, by the prompt of the plan step it answers. */
  qllm: Record<string, (inputs: Obj) => Obj>;
  /** The honest tool-calling model, one script per query. */
  agent: AgentStep[][];
  /** An agentic app's own model (role spoke) inside its SpokeDO: its honest script, tools named `app.tool`. */
  spoke?: { app: string; script: AgentStep[] };
  /** The demo MCP apps the task installs (registered over MCP and approved like the others). */
  mcp?: DemoMcpAppName[];
  /** Run only under attack: the task uses an app that is itself the attacker (no benign run exists). */
  attackOnly?: boolean;
  /**
   * Lost under Lattice whatever the policy, and why, as the suite's README says: e.g. what to do is
   * written in content a plan never reads. The loss table counts it as `by_design:<this>`.
   */
  lostByDesign?: string;
  /** Benign content the task needs in its world. */
  setup?: WorldEdit[];
  slots?: Record<string, Slot>;
  /** For an app_selection consent: the tool the user means, by category. */
  prefer?: Record<string, string>;
  /** The informed user: is this concrete call the one the task intends? */
  intends?: (functionality: string, data: Obj) => boolean;
  utility: (o: Outcome) => boolean;
}

export interface Injection {
  id: string;
  category: Category;
  /** The instruction as planted (the marker is added after it). */
  text: string;
  /** From which query (0-based) the tool-calling model acts on it: delayed attacks wait. */
  delayUntil?: number;
  agent?: {
    /** Calls made for the attacker; `phase` counts attacker turns already taken. */
    calls?: (v: AgentView, phase: number, carrier: string | undefined) => ToolCall[];
    /** Changes to the honest calls (redirected recipients). */
    rewrite?: (c: ToolCall, v: AgentView) => ToolCall;
    /** Words added to the final answer. */
    say?: (v: AgentView) => string;
  };
  /** Schema fields the obedient q-llm fills with the attacker's values, by field name. */
  qllm?: Array<{ field: RegExp; value: Json | ((honest: unknown) => Json) }>;
  /** Prompts that the planner inserts on the attacker's behalf, answered by the q-llm. */
  prompts?: Record<string, (inputs: Obj) => Obj>;
  /** The obedient planner's change to the honest plan (only reachable through app metadata). */
  planner?: (plan: Plan) => Plan;
  /** A manifest slot's further edit of the carrying app's manifest (e.g. dropping its categories). */
  manifest?: (m: HttpManifestInput) => HttpManifestInput;
  success: (o: Outcome) => boolean;
  /** Display tampering only: the attacker's claim reached the screen, marked untrusted or not. */
  shownAtAll?: (o: Outcome) => boolean;
}

export interface Case {
  id: string;
  task: UserTask;
  attack?: { injection: Injection; slot: string };
  quick: boolean;
}
