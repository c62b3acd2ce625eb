import type { QueryView } from "../../objects/hub/view.ts";
import { pendingConsents } from "./render.ts";

/** The extension field every `lattice` answer carries. */
export function latticeField(query: QueryView, sid: string) {
  const consents = pendingConsents(query);
  const steps = planSummary(query.plan);
  return {
    sessionId: sid,
    queryId: query.id,
    status: query.status,
    ...(steps && { plan: steps }),
    // Where each displayed value came from (the text marks untrusted ones as "(unverified)").
    display: query.display.map((item) => ({
      key: item.key,
      title: item.title,
      redacted: item.redacted,
      untrusted: item.untrusted,
      from: item.provenance.from,
      apps: item.provenance.apps,
    })),
    ...(consents.length && { consents }),
  };
}

type PlanStep = {
  kind?: string;
  out?: string;
  tool?: string;
  intent?: string;
  title?: string;
  artifact?: string;
};
type Summary = {
  kind: string;
  out?: string;
  tool?: string;
  intent?: string;
  title?: string;
  steps?: Summary[];
};

/** The verified plan in brief: each step's kind, output name, tool and intent; nested bodies bounded. */
function planSummary(plan: unknown, depth = 0): Summary[] | null {
  const steps = (plan as { steps?: unknown } | null)?.steps;
  if (!Array.isArray(steps) || depth > 4) return null;
  return steps.slice(0, 100).map((raw) => {
    const step = raw as PlanStep & { then?: unknown; else?: unknown; body?: unknown };
    const nested = [step.then, step.else, step.body].flatMap(
      (b) => planSummary({ steps: b }, depth + 1) ?? [],
    );
    return {
      kind: String(step.kind),
      ...(step.out && { out: step.out }),
      ...((step.tool ?? step.artifact) && { tool: step.tool ?? `artifact ${step.artifact}` }),
      ...(step.intent && { intent: step.intent }),
      ...(step.title && { title: step.title }),
      ...(nested.length && { steps: nested }),
    };
  });
}
