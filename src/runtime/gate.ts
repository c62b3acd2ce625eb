import type { AuditType } from "../audit-types.ts";
import {
  type ArgStanding,
  assess,
  type CallFacts,
  type ConsentKind,
  type ConsentNeed,
  checkCall,
  consentFor,
  type Lattices,
  type Policy,
  type PoolSource,
  type RuleCall,
  ruleCovers,
  type StandingRule,
  standingRulesAllowed,
  type ToolStep,
  TrustedPool,
  unaskedRefusal,
  type Violation,
  type Vouch,
  vouch,
} from "../policy/index.ts";
import { appSelectionAsk, authorizeAsk, callAsk, planEndorseAsk } from "./consent-asks.ts";
import type { Consent, ConsentAsk } from "./consents.ts";
import { callDestinations, isDeclaredDestination } from "./destination-args.ts";
import { StepFailure } from "./failure.ts";
import type { Pc } from "./interpreter.ts";
import { type AppPicks, pickedFor } from "./picks.ts";
import type { Defences } from "./records.ts";
import { type PlanningSnapshot, type Target, targetId } from "./snapshot.ts";
import { argStandings, remediedOf } from "./stored-answers.ts";
import type { Labeled } from "./values.ts";

/** What the gate reads: grants and this query's consents, kept by the hub. */
export interface GatePorts {
  /** A standing grant: this session's, then the user's permanent ones (read each time: revocation is immediate). */
  standing(subject: string): Promise<{ choice: string | null } | null>;
  /** The user's standing rules (read each time: revocation is immediate). */
  standingRules(): Promise<readonly StandingRule[]>;
  /** This query's latest consent on `subject`: the gate's memory across replays. */
  consent(subject: string): Consent | null;
  /**
   * Whether the user has authorized an app that needs its own OAuth authorization (the app's
   * spoke holds the tokens); if not, the authorization URL to hand them.
   */
  authorization(
    appId: string,
    subject: string,
  ): Promise<{ authorized: true } | { authorized: false; url: string }>;
  audit(type: AuditType, detail: Record<string, unknown>): void;
}

export interface GateContext {
  queryId: string;
  /**
   * The apps the frontend picked for this query, by what a choice is about: with the user's answer
   * and standing default, the only place an app choice comes from. The query's words never are one.
   */
  picks: AppPicks;
  policy: Policy;
  lattices: Lattices;
  /** The user's words: trusted values a deferred finding may match. */
  queryText: string;
  snapshot: PlanningSnapshot;
  /** The verifier's violations: under `ask` a runtime one carries its static causes. */
  violations: readonly Violation[];
  defences: Defences;
  ports: GatePorts;
}

/**
 * The hub's checkpoint before every tool call: which app serves it (the user picks among several),
 * whether the runtime labels satisfy the policy, and which consent the call needs. A consent to ask
 * is left in `asked`; the caller records it and the query waits.
 */
export class Gate {
  private readonly g: GateContext;
  asked: ConsentAsk | null = null;
  /** The current call's trusted values: built when a deferred finding first needs them. */
  private pool: TrustedPool | undefined;
  /** How each of the current call's arguments was vouched for (vouch.ts), if it was. */
  private readonly vouchedBy = new Map<string, Vouch>();

  constructor(context: GateContext) {
    this.g = context;
  }

  /** The target this step runs on; null while the user has yet to pick. The planner never picks. */
  async route(step: ToolStep, key: string): Promise<Target | null> {
    const { snapshot } = this.g;
    const targets = snapshot.targets[step.tool] ?? [];
    const first = targets[0];
    if (!first) throw new StepFailure("unknown_tool", `${step.tool} is served by no app`);
    if (targets.length === 1 || !this.g.defences.consent) return first;
    const choice = snapshot.choices[step.tool] ?? step.tool;
    // An app named in the query's words is only text: an app may take any word or handle as its
    // name (`noon`, `@here`). The frontend's structured pick is the user's choice.
    const picked = pickedFor(this.g.picks, choice);
    const candidates = targets.filter((t) => picked.includes(t.app));
    // Apps mode (the planned target first): one of several apps picked runs what was planned on it (a
    // comparison), but an action that cannot be undone needs its app picked alone.
    const planned = snapshot.mode === "apps" && candidates.includes(first);
    if (planned && (!first.entry.irreversible || candidates.length === 1)) return first;
    if (candidates.length === 1) return candidates[0]!;
    const subject = `app_selection:${choice}`;
    const byId = (id: string | null | undefined) => targets.find((t) => targetId(t) === id) ?? null;
    const standing = byId((await this.g.ports.standing(subject))?.choice);
    if (standing) return standing;
    const decided = this.decision(subject, "app_selection");
    if (decided === "pending") return null;
    if (decided) return byId(decided.choice) ?? first;
    this.asked = appSelectionAsk({ step, key, subject, choice, snapshot, targets });
    return null;
  }

  /**
   * Before any step runs (`endorseFirst`, under `onViolation: "ask"`): the verifier's endorsable
   * violations on the plan's unconditional steps are asked one step at a time, in plan order. A step
   * is unconditional when it is a tool step at the plan's top level (path `steps[i]`): one inside a
   * condition may not run, and one inside a loop runs per item, so those are asked at the step only.
   * A deferred finding is left to the step too, since a remedy may meet it on the value. The consent
   * names where each value will come from and shows none (none exists yet); the step's own `endorse`
   * with the concrete value is still asked. A denial fails the query before any call is made.
   */
  endorseFirst(): "go" | "pause" {
    const { defences, policy } = this.g;
    if (!defences.endorseFirst || !defences.ifc || !defences.consent || policy.onViolation !== "ask") {
      return "go";
    }
    const byStep = new Map<string, Violation[]>();
    for (const v of this.g.violations) {
      if (!v.endorsable || v.deferred || !/^steps\[\d+\]$/.test(v.path)) continue;
      byStep.set(v.path, [...(byStep.get(v.path) ?? []), v]);
    }
    const order = (path: string) => Number(path.slice(6, -1));
    for (const path of [...byStep.keys()].sort((a, b) => order(a) - order(b))) {
      const subject = `endorse_plan:${path}`;
      const decided = this.decision(subject, "endorse_plan");
      if (decided === "pending") return "pause";
      if (decided) continue;
      this.asked = planEndorseAsk({
        path,
        subject,
        violations: byStep.get(path)!,
        snapshot: this.g.snapshot,
      });
      return "pause";
    }
    return "go";
  }

  async check(
    target: Target,
    key: string,
    args: Record<string, Labeled>,
    pc: Pc,
    bound: () => Iterable<PoolSource> = () => [],
  ): Promise<"go" | "pause"> {
    this.pool = undefined;
    this.vouchedBy.clear();
    const found = this.g.defences.ifc ? this.runtimeViolations(target, key, args, pc) : [];
    const violations = found.filter((v) => !(v.deferred && this.vouched(target, key, v, args, bound)));
    const stopped = violations.find((v) => !v.endorsable);
    if (stopped) {
      this.g.ports.audit("runtime_flow_blocked", {
        queryId: this.g.queryId,
        key,
        tool: target.tool,
        violations,
      });
      throw new StepFailure(
        "flow_violation",
        `${target.tool} at ${key}: a value's label breaks the tool's policy`,
        {
          details: violations,
          facts: { step: key, tool: target.tool, argument: stopped.argument, flow: stopped.rule },
        },
      );
    }
    if (target.authorize && (await this.authorization(target, key)) === "pause") return "pause";
    if (!this.g.defences.consent) return "go";
    // Data reaches the app through the arguments and, implicitly, through the guards around the call.
    const origins = [...new Set([...Object.values(args).flatMap((a) => a.origins), ...pc.origins])]
      .filter((o) => o !== target.app)
      .sort();
    const facts: CallFacts = {
      tool: target.tool,
      app: target.app,
      irreversible: target.entry.irreversible,
      violations,
      origins,
      inPlan: true,
      plannedFrom: this.g.snapshot.mode,
      remedied: remediedOf(this.vouchedBy),
    };
    const need = consentFor(this.g.policy, facts);
    if (!need) return "go";
    const grantSubject =
      need.kind === "data_share" ? `data_share:${origins.join(",")}->${targetId(target)}` : null;
    const standing = argStandings(args, this.vouchedBy, this.g.lattices.integrity.top);
    // A stored answer (a grant, a rule) stands in for the user only on a call content did not write.
    const unasked = unaskedRefusal(pc.label.integrity === this.g.lattices.integrity.top, standing) === null;
    if (grantSubject && unasked && (await this.g.ports.standing(grantSubject))) return "go";
    const subject = `${need.kind}:${key}`;
    const decided = this.decision(subject, need.kind);
    if (decided === "pending") return "pause";
    if (decided) return "go";
    const call = { args, pc, need, facts, origins, standing, violations: violations.length };
    if (await this.standingRule(target, key, call)) return "go";
    this.asked = callAsk({
      policy: this.g.policy,
      lattices: this.g.lattices,
      snapshot: this.g.snapshot,
      queryText: this.g.queryText,
      target,
      key,
      subject,
      grantSubject,
      need,
      origins,
      args,
      bound,
    });
    return "pause";
  }

  /**
   * Whether one of the user's standing rules answers this consent instead of the user. Only an
   * `irreversible` or `data_share` one: an endorsement, an app choice or an agent's request is always
   * asked; and only a call content did not write (ruleCovers holds the invariant of unasked.ts).
   */
  private async standingRule(
    target: Target,
    key: string,
    c: {
      args: Record<string, Labeled>;
      pc: Pc;
      need: ConsentNeed;
      facts: CallFacts;
      origins: readonly string[];
      standing: Record<string, ArgStanding>;
      violations: number;
    },
  ): Promise<boolean> {
    const { need } = c;
    if (need.kind !== "irreversible" && need.kind !== "data_share") return false;
    if (!standingRulesAllowed(this.g.policy, target.tool)) return false;
    const rules = await this.g.ports.standingRules();
    if (!rules.length) return false;
    const call: RuleCall = {
      tool: target.tool,
      args: Object.fromEntries(Object.entries(c.args).map(([name, a]) => [name, a.value])),
      standing: c.standing,
      // Where content's pick needs the rule's `chosenFrom`.
      destinations: callDestinations(
        this.g.policy,
        target,
        this.g.snapshot.destinations[target.tool],
        Object.keys(c.args),
      ),
      origins: c.origins,
      violations: c.violations,
      // Judged without the remedied arguments' reasons: the invariant and the rule's own words
      // (`from`, `chosenFrom`) decide those, and a rule says which choice it accepts.
      verdict: assess({ ...c.facts, remedied: [] }, need.kind).verdict,
      steered: c.pc.label.integrity !== this.g.lattices.integrity.top,
    };
    const rule = this.g.defences.ruleScope ? rules.find((r) => ruleCovers(r, call, Date.now())) : rules[0];
    if (!rule) return false;
    // Names, never values: the audit log is read by the tenant's admin.
    this.g.ports.audit("standing_rule_used", {
      queryId: this.g.queryId,
      rule: rule.id,
      tool: target.tool,
      step: key,
      consent: need.kind,
    });
    return true;
  }

  /**
   * An app the user has not authorized yet: the query waits on an `authorize` consent that carries
   * the authorization URL; the callback settles it once the user's tokens are stored. Not a defence
   * (no control switches it off): without the user's tokens the app cannot be called at all.
   */
  private async authorization(target: Target, key: string): Promise<"go" | "pause"> {
    const subject = `authorize:${target.appId}`;
    const status = await this.g.ports.authorization(target.appId, subject);
    if (status.authorized) return "go";
    const decided = this.decision(subject, "authorize");
    if (decided === "pending") return "pause";
    if (decided) {
      throw new StepFailure(
        "authorization_required",
        `${target.app} was not authorized: the user allowed it without signing in`,
      );
    }
    this.asked = authorizeAsk(target, key, subject, status.url);
    return "pause";
  }

  /**
   * A deferred finding met by the tenant's remedy on the concrete value (vouch.ts): audited with
   * how, never with the value. The pool of trusted values is built once per call, when first needed.
   */
  private vouched(
    target: Target,
    key: string,
    v: Violation,
    args: Record<string, Labeled>,
    bound: () => Iterable<PoolSource>,
  ): boolean {
    const arg = v.argument === null ? undefined : args[v.argument];
    if (!arg || v.argument === null) return false;
    const how = vouch({
      l: this.g.lattices,
      policy: this.g.policy,
      tool: target.tool,
      argument: v.argument,
      // Declared, or made one by the catalog's schema: the sanitiser never vouches for a place.
      destination: isDeclaredDestination(target, this.g.snapshot.destinations[target.tool], v.argument),
      value: arg.value,
      required: v.required,
      // Built on first need: a payload that writes no reference never reads it.
      pool: () => (this.pool ??= new TrustedPool(this.g.lattices, this.g.queryText, bound())),
    });
    if (how) this.vouchedBy.set(v.argument, how);
    if (how)
      this.g.ports.audit("flow_vouched", {
        queryId: this.g.queryId,
        key,
        tool: target.tool,
        argument: v.argument,
        ...how,
      });
    return how !== null;
  }

  /** The verifier's own rule (`checkCall`) on runtime labels; a known static violation keeps its causes. */
  private runtimeViolations(target: Target, key: string, args: Record<string, Labeled>, pc: Pc): Violation[] {
    // The plan path of a runtime key: without loop iterations (`#i`) and a fan-out's app (`@app`).
    const path = key.replace(/#\d+/g, "").replace(/@.*$/, "");
    const findings = checkCall({
      policy: this.g.policy,
      lattices: this.g.lattices,
      tool: target.tool,
      entry: target.entry,
      pc: pc.label,
      args: Object.fromEntries(Object.entries(args).map(([name, a]) => [name, a.label])),
    });
    return findings.map((f) => {
      const known = this.g.violations.find(
        (v) => v.path === path && v.argument === f.argument && v.rule === f.rule,
      );
      // A known static violation lends its causes, never its endorsability: the check is against the
      // app that actually serves the step (after an app choice it may be cleared lower than planned).
      const fresh = {
        label: f.label,
        required: f.required,
        endorsable: f.endorsable,
        deferred: f.deferred,
        tool: target.tool,
      };
      return known
        ? { ...known, ...fresh }
        : {
            path,
            stepOut: "",
            argument: f.argument,
            rule: f.rule,
            sources: [],
            sourcesTruncated: false,
            ...fresh,
          };
    });
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
