import {
  argumentRequirement,
  type CallFacts,
  type ConsentKind,
  callRequirement,
  clearanceOf,
  consentFor,
  displayRequirement,
  flowAllowed,
  flowViolations,
  type Label,
  type Policy,
  policyLattices,
  sinkLabel,
  type ToolStep,
  type Violation,
  type VisorCheck,
} from "../../policy/index.ts";
import type { ArtifactsDO } from "../artifacts/index.ts";
import type { Rpc } from "../rpc.ts";
import type { Consent, ConsentRequest, ConsentStore } from "./consents.ts";
import type { PlanningSnapshot } from "./planner.ts";
import type { HubStore } from "./store.ts";
import { type Labeled, StepFailure } from "./values.ts";

export interface GateContext {
  queryId: string;
  /** The user's words: the only place an app choice may come from besides the user's answer. */
  query: string;
  policy: Policy;
  snapshot: PlanningSnapshot;
  violations: readonly Violation[];
  defences: { ifc: boolean; consent: boolean; isolation: boolean; visor: Record<VisorCheck, boolean> };
  store: HubStore;
  consents: ConsentStore;
  vault: Rpc<ArtifactsDO>;
  audit(type: string, detail: Record<string, unknown>): void;
}

/**
 * The hub's checkpoint before every tool call: which app serves it (the user picks among
 * alternatives), whether the runtime labels satisfy the policy, and which consent the call needs.
 * Decisions are read back from storage on every replay, so a pause survives eviction.
 */
export class Gate {
  private readonly g: GateContext;

  constructor(context: GateContext) {
    this.g = context;
  }

  /** The tool this step calls; null while the user has yet to pick among alternative apps. */
  async route(step: ToolStep): Promise<string | null> {
    const { snapshot } = this.g;
    const category = snapshot.categories[step.tool];
    const options = category ? (snapshot.alternatives[category] ?? []) : [];
    if (!category || options.length < 2 || !this.defended("consent")) return step.tool;
    // The user chose only if the query itself names the planned app; the planner never chooses. An
    // action that cannot be undone needs the query to name that app alone: a query naming two apps
    // (to compare them) chose neither to act with.
    const named = options.filter((o) => new RegExp(`\\b${o.app}\\b`, "i").test(this.g.query));
    const irreversible = snapshot.catalog[step.tool]?.irreversible ?? true;
    if (named.some((o) => o.tool === step.tool) && (!irreversible || named.length === 1)) return step.tool;
    const grantSubject = `app_selection:${category}`;
    const standing = await this.standingGrant(grantSubject);
    if (standing?.choice && options.some((o) => o.tool === standing.choice)) return standing.choice;
    const decided = this.decision(`app_selection:${category}`, "app_selection");
    if (decided === "pending") return null;
    if (decided) return decided.choice ?? step.tool;
    this.ask("app_selection", `app_selection:${category}`, grantSubject, step.tool, "route", {
      functionality: category,
      data: { plannerChose: step.tool },
      assessment: { verdict: "expected", reasons: [] },
      scopes: ["once", "session", "permanent"],
      options,
    });
    return null;
  }

  async check(tool: string, key: string, args: Record<string, Labeled>, pc: Label): Promise<"go" | "pause"> {
    const violations = this.defended("ifc") ? this.runtimeViolations(tool, key, args, pc) : [];
    if (violations.some((v) => !v.endorsable) || (violations.length && this.g.policy.onViolation !== "ask")) {
      this.g.audit("runtime_flow_blocked", { queryId: this.g.queryId, key, tool, violations });
      throw new StepFailure(
        "flow_violation",
        `${tool} at ${key}: a value's label breaks the tool's policy`,
        violations,
      );
    }
    if (!this.defended("consent")) return "go";
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
    if (grantSubject && (await this.standingGrant(grantSubject))) return "go";
    const subject = `${need.kind}:${key}`;
    const decided = this.decision(subject, need.kind);
    if (decided === "pending") return "pause";
    if (decided) return "go";
    // The consent shows the concrete values, except those the display policy keeps from the frontend.
    const l = policyLattices(this.g.policy);
    const shown = displayRequirement(this.g.policy, l);
    const data = Object.fromEntries(
      Object.entries(args).map(([name, a]) => [
        name,
        flowAllowed(l, a.label, shown) ? a.value : { withheld: true, label: a.label },
      ]),
    );
    this.ask(need.kind, subject, grantSubject, tool, key, {
      ...(origins.length && { from: origins }),
      to: app,
      functionality: tool,
      data,
      assessment: need.assessment,
      scopes: need.scopes,
    });
    return "pause";
  }

  private defended(which: "ifc" | "consent"): boolean {
    return this.g.defences[which];
  }

  /** The runtime check mirrors the verifier; under `ask` its violations carry the static causes. */
  private runtimeViolations(
    tool: string,
    key: string,
    args: Record<string, Labeled>,
    pc: Label,
  ): Violation[] {
    const { policy, snapshot } = this.g;
    const l = policyLattices(policy);
    const entry = snapshot.catalog[tool];
    const path = key.replace(/#\d+/g, "");
    const clearanceCap = { maxConfidentiality: clearanceOf(l, entry), minIntegrity: l.integrity.bottom };
    const found: Violation[] = [];
    const add = (argument: string | null, label: Label, required: ReturnType<typeof callRequirement>) => {
      for (const rule of flowViolations(l, label, required)) {
        const known = this.g.violations.find(
          (v) => v.path === path && v.argument === argument && v.rule === rule,
        );
        found.push(
          known ?? {
            path,
            stepOut: "",
            tool,
            argument,
            rule,
            label,
            required,
            sources: [],
            sourcesTruncated: false,
            // Above the app's clearance no approval helps (the admin's cap), as in the verifier.
            endorsable: !(rule === "confidentiality" && !flowAllowed(l, label, clearanceCap)),
          },
        );
      }
    };
    add(null, pc, callRequirement(policy, l, tool, entry));
    for (const [name, arg] of Object.entries(args)) {
      add(name, sinkLabel(l, arg.label, pc), argumentRequirement(policy, l, tool, entry, name));
    }
    return found;
  }

  /** A standing grant: this session's, then the user's permanent ones (read each time: revocation is immediate). */
  private async standingGrant(subject: string): Promise<{ choice: string | null } | null> {
    return this.g.consents.sessionGrant(subject) ?? (await this.g.vault.findGrant(subject));
  }

  /** The user's answer to this query's consent on `subject`: allowed (returned), pending, or none yet. */
  private decision(subject: string, kind: ConsentKind): Consent | "pending" | null {
    const consent = this.g.consents.forSubject(this.g.queryId, subject);
    if (!consent) return null;
    if (consent.status === "pending") return "pending";
    if (consent.status === "allowed") return consent;
    const why = consent.status === "denied" ? "the user declined" : "nobody answered in time";
    throw new StepFailure(
      `consent_${consent.status}`,
      `${kind} consent for ${consent.functionality}: ${why}`,
    );
  }

  private ask(
    kind: ConsentKind,
    subject: string,
    grantSubject: string | null,
    tool: string,
    key: string,
    request: ConsentRequest,
  ): void {
    const consent = this.g.consents.ask({
      queryId: this.g.queryId,
      stepKey: key,
      kind,
      subject,
      grantSubject,
      request,
      timeoutSeconds: this.g.policy.consent.timeoutSeconds,
    });
    this.g.store.update(this.g.queryId, { status: "awaiting_consent" });
    this.g.store.emit(this.g.queryId, "consent_requested", { consentId: consent.id, kind, tool, key });
    this.g.audit("consent_asked", {
      queryId: this.g.queryId,
      consentId: consent.id,
      kind,
      tool,
      assessment: request.assessment,
    });
  }
}
