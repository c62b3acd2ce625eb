import {
  allowedScopes,
  type CallFacts,
  type ConsentKind,
  checkCall,
  consentFor,
  displayRequirement,
  flowAllowed,
  type Label,
  type Lattices,
  type Policy,
  type ToolStep,
  type Violation,
} from "../policy/index.ts";
import type { Consent, ConsentAsk } from "./consents.ts";
import { StepFailure } from "./failure.ts";
import type { Defences } from "./records.ts";
import type { PlanningSnapshot } from "./snapshot.ts";
import type { Labeled } from "./values.ts";

/** What the gate reads: grants and this query's consents, kept by the hub. */
export interface GatePorts {
  /** A standing grant: this session's, then the user's permanent ones (read each time: revocation is immediate). */
  standing(subject: string): Promise<{ choice: string | null } | null>;
  /** This query's latest consent on `subject`: the gate's memory across replays. */
  consent(subject: string): Consent | null;
  audit(type: string, detail: Record<string, unknown>): void;
}

export interface GateContext {
  queryId: string;
  /** The user's words: the only place an app choice may come from besides the user's answer. */
  query: string;
  policy: Policy;
  lattices: Lattices;
  snapshot: PlanningSnapshot;
  /** The verifier's violations: under `ask` a runtime one carries its static causes. */
  violations: readonly Violation[];
  defences: Defences;
  ports: GatePorts;
}

/**
 * The hub's checkpoint before every tool call: which app serves it (the user picks among
 * alternatives), whether the runtime labels satisfy the policy, and which consent the call needs.
 * A consent to ask is left in `asked`; the caller records it and the query waits.
 */
export class Gate {
  private readonly g: GateContext;
  asked: ConsentAsk | null = null;

  constructor(context: GateContext) {
    this.g = context;
  }

  /** The tool this step calls; null while the user has yet to pick among alternative apps. */
  async route(step: ToolStep, key: string): Promise<string | null> {
    const { snapshot } = this.g;
    const category = snapshot.categories[step.tool];
    const options = category ? (snapshot.alternatives[category] ?? []) : [];
    if (!category || options.length < 2 || !this.g.defences.consent) return step.tool;
    // The user chose only if the query itself names the planned app; the planner never chooses. An
    // action that cannot be undone needs the query to name that app alone: a query naming two apps
    // (to compare them) chose neither to act with.
    const named = options.filter((o) => new RegExp(`\\b${o.app}\\b`, "i").test(this.g.query));
    const irreversible = snapshot.catalog[step.tool]?.irreversible ?? true;
    if (named.some((o) => o.tool === step.tool) && (!irreversible || named.length === 1)) return step.tool;
    const subject = `app_selection:${category}`;
    const standing = await this.g.ports.standing(subject);
    if (standing?.choice && options.some((o) => o.tool === standing.choice)) return standing.choice;
    const decided = this.decision(subject, "app_selection");
    if (decided === "pending") return null;
    if (decided) return decided.choice ?? step.tool;
    this.asked = {
      kind: "app_selection",
      stepKey: key,
      subject,
      grantSubject: subject,
      tool: step.tool,
      request: {
        functionality: category,
        data: { plannerChose: step.tool },
        assessment: { verdict: "expected", reasons: [] },
        scopes: allowedScopes("app_selection"),
        options,
      },
    };
    return null;
  }

  async check(tool: string, key: string, args: Record<string, Labeled>, pc: Label): Promise<"go" | "pause"> {
    const violations = this.g.defences.ifc ? this.runtimeViolations(tool, key, args, pc) : [];
    if (violations.some((v) => !v.endorsable)) {
      this.g.ports.audit("runtime_flow_blocked", { queryId: this.g.queryId, key, tool, violations });
      throw new StepFailure("flow_violation", `${tool} at ${key}: a value's label breaks the tool's policy`, {
        details: violations,
      });
    }
    if (!this.g.defences.consent) return "go";
    const app = tool.slice(0, tool.indexOf("."));
    const origins = [...new Set(Object.values(args).flatMap((a) => a.origins))].filter((o) => o !== app);
    const facts: CallFacts = {
      tool,
      app,
      irreversible: this.g.snapshot.catalog[tool]?.irreversible ?? true,
      violations,
      origins,
      inPlan: true,
    };
    const need = consentFor(this.g.policy, facts);
    if (!need) return "go";
    const grantSubject = need.kind === "data_share" ? `data_share:${origins.join(",")}->${tool}` : null;
    if (grantSubject && (await this.g.ports.standing(grantSubject))) return "go";
    const subject = `${need.kind}:${key}`;
    const decided = this.decision(subject, need.kind);
    if (decided === "pending") return "pause";
    if (decided) return "go";
    // The consent shows the concrete values, except those the display policy keeps from the frontend.
    const l = this.g.lattices;
    const shown = displayRequirement(this.g.policy, l);
    const data = Object.fromEntries(
      Object.entries(args).map(([name, a]) => [
        name,
        flowAllowed(l, a.label, shown) ? a.value : { withheld: true, label: a.label },
      ]),
    );
    this.asked = {
      kind: need.kind,
      stepKey: key,
      subject,
      grantSubject,
      tool,
      request: {
        ...(origins.length && { from: origins }),
        to: app,
        functionality: tool,
        data,
        assessment: need.assessment,
        scopes: need.scopes,
      },
    };
    return "pause";
  }

  /** The verifier's own rule (`checkCall`) on runtime labels; a known static violation keeps its causes. */
  private runtimeViolations(
    tool: string,
    key: string,
    args: Record<string, Labeled>,
    pc: Label,
  ): Violation[] {
    const path = key.replace(/#\d+/g, "");
    const findings = checkCall({
      policy: this.g.policy,
      lattices: this.g.lattices,
      tool,
      entry: this.g.snapshot.catalog[tool],
      pc,
      args: Object.fromEntries(Object.entries(args).map(([name, a]) => [name, a.label])),
    });
    return findings.map(
      (f) =>
        this.g.violations.find((v) => v.path === path && v.argument === f.argument && v.rule === f.rule) ?? {
          path,
          stepOut: "",
          tool,
          argument: f.argument,
          rule: f.rule,
          label: f.label,
          required: f.required,
          sources: [],
          sourcesTruncated: false,
          endorsable: f.endorsable,
        },
    );
  }

  /** The user's answer to this query's consent on `subject`: allowed (returned), pending, or none yet. */
  private decision(subject: string, kind: ConsentKind): Consent | "pending" | null {
    const consent = this.g.ports.consent(subject);
    if (!consent) return null;
    if (consent.status === "pending") return "pending";
    if (consent.status === "allowed") return consent;
    const why = consent.status === "denied" ? "the user declined" : "nobody answered in time";
    throw new StepFailure(
      consent.status === "denied" ? "consent_denied" : "consent_expired",
      `${kind} consent for ${consent.functionality}: ${why}`,
    );
  }
}
