import {
  type Assessment,
  allowedScopes,
  assess,
  type ConsentNeed,
  displayRequirement,
  flowAllowed,
  type Lattices,
  type Policy,
  type PoolSource,
  type Source,
  type ToolStep,
  TrustedPool,
  type Violation,
} from "../policy/index.ts";
import { type RelayInput, shownRequest, targetsOf } from "./collaboration.ts";
import type { ConsentView, ViewField, ViewSource } from "./consent-view.ts";
import { callView, choiceView, reasonFor, signInView, trustedReferences } from "./consent-view-build.ts";
import type { ConsentAsk } from "./consents.ts";
import { type PlanningSnapshot, type Target, targetId } from "./snapshot.ts";
import type { Labeled } from "./values.ts";

/**
 * The consents the runtime asks, as the hub records them: what the user is shown (`data`, with the
 * display policy applied, and the typed `view` a person reads) and what an answer may cover. The
 * gate decides when to ask; these build what is asked.
 */

/** The user picks among several apps for `choice`; none preselected (a standing default is used unasked). */
export function appSelectionAsk(input: {
  step: ToolStep;
  key: string;
  subject: string;
  choice: string;
  snapshot: PlanningSnapshot;
  targets: readonly Target[];
}): ConsentAsk {
  const { step, snapshot, targets } = input;
  const first = targets[0]!;
  const assessment = assess(
    {
      tool: step.tool,
      app: first.app,
      irreversible: first.entry.irreversible,
      violations: [],
      origins: [],
      inPlan: true,
      plannedFrom: snapshot.mode,
    },
    "app_selection",
  );
  // Each option in the app's own words, shown as the app's.
  const options = targets.map((t) => ({ tool: targetId(t), app: t.app, description: t.description }));
  return {
    kind: "app_selection",
    stepKey: input.key,
    subject: input.subject,
    grantSubject: input.subject,
    tool: step.tool,
    request: {
      functionality: input.choice,
      data: snapshot.mode === "apps" ? { plannerChose: step.tool } : {},
      assessment,
      scopes: allowedScopes("app_selection"),
      options,
      view: choiceView({ functionality: input.choice, options, standing: null, assessment }),
    },
  };
}

/** A call's consent (data_share, irreversible, endorse): the concrete values, except those the display policy keeps. */
export function callAsk(input: {
  policy: Policy;
  lattices: Lattices;
  snapshot: PlanningSnapshot;
  queryText: string;
  target: Target;
  key: string;
  subject: string;
  grantSubject: string | null;
  need: ConsentNeed;
  origins: readonly string[];
  args: Readonly<Record<string, Labeled>>;
  bound: () => Iterable<PoolSource>;
}): ConsentAsk {
  const { lattices: l, target, need, origins, args } = input;
  const shown = displayRequirement(input.policy, l);
  const data = Object.fromEntries(
    Object.entries(args).map(([name, a]) => [
      name,
      flowAllowed(l, a.label, shown) ? a.value : { withheld: true, label: a.label },
    ]),
  );
  // The values a shown one is compared with: the user's words and the answers the policy trusts.
  const pool = new TrustedPool(l, input.queryText, input.bound());
  const view = callView({
    kind: need.kind,
    tool: target.tool,
    app: target.app,
    from: origins,
    declared: target.view,
    requestSchema: target.entry.requestSchema,
    titles: input.snapshot.mode === "catalog",
    data,
    args,
    assessment: need.assessment,
    trusted: trustedReferences(pool, l.integrity.levels.length - 1),
    topIntegrity: l.integrity.top,
  });
  return {
    kind: need.kind,
    stepKey: input.key,
    subject: input.subject,
    grantSubject: input.grantSubject,
    tool: target.tool,
    request: {
      ...(origins.length && { from: [...origins] }),
      to: target.app,
      functionality: target.tool,
      data,
      assessment: need.assessment,
      scopes: need.scopes,
      view,
    },
  };
}

/**
 * A step's endorsement asked before any step runs (gate.ts, `endorseFirst`): the step, its tool, each
 * argument the verifier found below its floor and where its value will come from (the violation's
 * static `sources`). No value exists yet, so none is shown (`value` null, not withheld); the step's
 * own `endorse` with the concrete value is still asked when it runs.
 */
export function planEndorseAsk(input: {
  path: string;
  subject: string;
  violations: readonly Violation[];
  snapshot: PlanningSnapshot;
}): ConsentAsk {
  const { path, violations, snapshot } = input;
  const tool = violations[0]!.tool;
  const assessment = assess(
    { tool, app: "", irreversible: false, violations, origins: [], inPlan: true, plannedFrom: snapshot.mode },
    "endorse_plan",
  );
  const byArgument = new Map<string, Violation[]>();
  for (const v of violations) {
    const name = v.argument ?? "(whether it runs)";
    byArgument.set(name, [...(byArgument.get(name) ?? []), v]);
  }
  const planned = [...byArgument].map(([argument, vs]) => ({
    argument,
    rules: [...new Set(vs.map((v) => v.rule))],
    from: vs.flatMap((v) => v.sources.map(plannedSource)),
  }));
  const fields: ViewField[] = planned.map((p) => ({
    name: p.argument,
    label: p.argument,
    labelFrom: "data",
    value: null,
    withheld: false,
    sources: dedupe(p.from.map((f) => f.view)),
    highlight: true,
    warnings: [],
  }));
  return {
    kind: "endorse_plan",
    stepKey: path,
    subject: input.subject,
    grantSubject: null,
    tool,
    request: {
      functionality: tool,
      data: {
        step: path,
        planned: planned.map((p) => ({
          argument: p.argument,
          rules: p.rules,
          from: p.from.map((f) => f.shown),
        })),
      },
      assessment,
      scopes: allowedScopes("endorse_plan"),
      view: {
        kind: "action",
        title: `Before the plan runs: ${tool} at ${path}`,
        fields,
        reason: reasonFor("endorse_plan", assessment, [], tool),
        warnings: 0,
      },
    },
  };
}

/** Where a planned value will come from, as the verifier names it: places and labels, never a value. */
function plannedSource(s: Source): { shown: Record<string, string>; view: ViewSource } {
  switch (s.kind) {
    case "literal":
      return {
        shown: { kind: "literal", path: s.path },
        view: { kind: "planner", apps: [], words: "the planner's choice" },
      };
    case "tool":
      return {
        shown: { kind: "tool", path: s.path, tool: s.tool, integrity: s.label.integrity },
        view: { kind: "app", apps: [], words: `${s.tool}'s answer (${s.path})` },
      };
    case "artifact":
      return {
        shown: { kind: "artifact", path: s.path, artifact: s.artifact, integrity: s.label.integrity },
        view: { kind: "saved", apps: [], words: `your saved data (${s.artifact})` },
      };
    case "guard":
      return {
        shown: { kind: "guard", path: s.path, integrity: s.label.integrity },
        view: { kind: "app", apps: [], words: `a decision on content (${s.path})` },
      };
  }
}

const dedupe = (sources: ViewSource[]): ViewSource[] => [
  ...new Map(sources.map((s) => [JSON.stringify(s), s])).values(),
];

/** An app the user has not authorized yet: the authorization URL to sign in at. */
export function authorizeAsk(target: Target, key: string, subject: string, url: string): ConsentAsk {
  const assessment: Assessment = {
    verdict: "expected",
    reasons: [`${target.app} asks you to sign in to it once, at its own site`],
  };
  return {
    kind: "authorize",
    stepKey: key,
    subject,
    grantSubject: null,
    tool: target.tool,
    request: {
      to: target.app,
      functionality: target.tool,
      data: {},
      assessment,
      scopes: allowedScopes("authorize"),
      authorization: { url },
      view: signInView({ app: target.app, url, assessment }),
    },
  };
}

/** Every value of a spoke's request was written by its agent, whatever it read. */
const agentSource = (app: string): ViewSource => ({ kind: "model", apps: [app], words: `${app}'s agent` });

/**
 * A spoke's collaboration request as a person reads it: what the asking app wants sent, in the
 * functionality's shape, to whichever app the user picks, and what its agent had read.
 */
export function collaborationView(
  input: RelayInput,
  options: ReadonlyArray<{ tool: string; app: string; description: string }>,
  assessment: Assessment,
): ConsentView {
  const first = targetsOf(input)[0];
  const view = requestView(input, first, "collaboration", assessment, input.functionality);
  view.title = `${input.asker.app} asks to use ${input.functionality}`;
  view.options = options.map((o) => ({ ...o, preselected: false }));
  view.fields.push({
    name: "read",
    label: `What ${input.asker.app}'s agent read`,
    value: input.asker.read.join(", ") || "nothing it reported",
    withheld: false,
    sources: [agentSource(input.asker.app)],
    highlight: true,
    warnings: [],
  });
  return view;
}

/** A later consent of a relayed request (endorse, irreversible) for the app the user chose. */
export function relayView(
  input: RelayInput,
  target: Target,
  kind: "endorse" | "irreversible",
  assessment: Assessment,
): ConsentView {
  return requestView(input, target, kind, assessment, target.app);
}

function requestView(
  input: RelayInput,
  target: Target | undefined,
  kind: "collaboration" | "endorse" | "irreversible",
  assessment: Assessment,
  app: string,
): ConsentView {
  const shown = shownRequest(input);
  const data =
    typeof shown === "object" && shown !== null && !Array.isArray(shown)
      ? (shown as Record<string, unknown>)
      : { request: shown };
  const withheld = (data as { withheld?: unknown }).withheld === true;
  return callView({
    kind,
    tool: target?.tool ?? input.functionality,
    app,
    from: [input.asker.app],
    declared: target?.view,
    requestSchema: target?.entry.requestSchema ?? {},
    titles: input.snapshot.mode === "catalog",
    data: withheld ? { request: data } : data,
    args: {},
    assessment,
    // No trusted values were read for a spoke's request: only its characters are checked.
    trusted: null,
    writer: agentSource(input.asker.app),
  });
}
