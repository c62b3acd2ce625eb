/**
 * The plan view: each verified step with the source of each argument, the label its value got, and
 * the rules its flows met; the runtime trace beside it. Only the query view is read (public API).
 * The plan and verdict are typed here as far as the view reads them (the API types them `unknown`).
 */
import { api, call } from "./api.ts";
import { byId, clear, el } from "./dom.ts";
import { renderDisplay } from "./query.ts";
import type { Consent, Label, Query } from "./words.ts";

type Value =
  | { lit: unknown }
  | { ref: string; path?: string | string[] }
  | { arr: Value[] }
  | { artifact: string };
interface Step {
  kind: "tool" | "qllm" | "display" | "condition" | "loop" | "retrieve" | "select";
  out?: string;
  tool?: string;
  title?: string;
  intent?: string;
  args?: Record<string, Value>;
  inputs?: Record<string, Value>;
  value?: Value;
  over?: Value;
  as?: string;
  artifact?: string;
  providers?: string;
  pick?: string;
  by?: (string | number)[];
  where?: { path: (string | number)[]; equals: Value }[];
  then?: Step[];
  else?: Step[];
  body?: Step[];
}
interface Finding {
  path: string;
  rule?: string;
  argument?: string;
  label: Label;
  required: { maxConfidentiality?: string; minIntegrity?: string };
}
interface Verdict {
  violations?: Finding[];
  redactions?: Finding[];
}
type Outs = Record<string, { label: Label | null }>;

const labelText = (l: Label | null | undefined) => (l ? `${l.confidentiality} / ${l.integrity}` : "not run");

/** Where an argument comes from, in words. */
function source(v: Value | undefined, outs: Outs): string {
  if (v && typeof v === "object") {
    if ("lit" in v) return `the literal ${JSON.stringify(v.lit)}`;
    if ("ref" in v) {
      const path = v.path ? `.${([] as string[]).concat(v.path).join(".")}` : "";
      const from = outs[v.ref];
      return `the value ${v.ref}${path}${from ? ` (label ${labelText(from.label)})` : ""}`;
    }
    if ("arr" in v) return `a list of ${v.arr.map((x) => source(x, outs)).join(", ")}`;
    if ("artifact" in v) return `saved data ${v.artifact}`;
  }
  return JSON.stringify(v);
}

/**
 * The rules a step's flows met, with the levels where the query view has them (a violation's or a
 * redaction's label against what was required); otherwise the rule in general words, saying so:
 * an app's clearance and the policy's integrity floors are the admin's, not in a user's view.
 */
function rules(step: Step, key: string, query: Query, label: Label | null): HTMLElement {
  const list: string[] = [];
  const verdict = (query.verdict ?? {}) as Verdict;
  const violations = (verdict.violations ?? []).filter((x) => x.path === key);
  const redaction = (verdict.redactions ?? []).find((x) => x.path === key);
  if (step.kind === "tool") {
    const what = (v: Finding) =>
      v.argument ? `argument ${v.argument}` : "the call itself (it depends on a condition)";
    const conf = violations.filter((v) => v.rule === "confidentiality");
    const integ = violations.filter((v) => v.rule === "integrity");
    if (conf.length) {
      for (const v of conf) {
        list.push(
          `confidentiality: not met: ${what(v)} carries ${v.label.confidentiality}, above the ${v.required.maxConfidentiality} this app is cleared for`,
        );
      }
    } else {
      list.push(
        "confidentiality: every argument's data is within what the serving app is cleared for (in general words: the app's clearance is set by your admin and is not in this view)",
      );
    }
    if (integ.length) {
      for (const v of integ) {
        list.push(
          `integrity: not met: ${what(v)} is ${v.label.integrity}, below the ${v.required.minIntegrity} the policy asks of it`,
        );
      }
    } else {
      list.push(
        "integrity: every argument is at least as trusted as the policy asks of it (in general words: the required level is in the admin's policy)",
      );
    }
    for (const c of query.consents as Consent[]) {
      if (c.stepId === key || c.stepId.startsWith(`${key}#`) || c.stepId.startsWith(`${key}@`)) {
        list.push(`consent (${c.kind}): ${c.status}${c.scope ? `, ${c.scope}` : ""}`);
      }
    }
  } else if (step.kind === "display") {
    const shown = query.display.find((d) => d.key === key);
    if (redaction) {
      list.push(
        `display: withheld, its label ${redaction.label.confidentiality} is above the display policy's cap (${redaction.required.maxConfidentiality})`,
      );
    } else if (shown?.redacted) {
      list.push(
        `display: withheld, its label ${shown.label.confidentiality} is above the display policy's cap`,
      );
    } else {
      list.push(
        shown
          ? `display: within the display policy's cap${label ? ` (label ${labelText(label)})` : ""}`
          : "display: not reached",
      );
    }
  } else if (step.kind === "qllm") {
    list.push("a model reads its inputs without tools; its output keeps the inputs' labels");
  } else if (step.kind === "condition") {
    list.push("the branch taken depends on the condition: the steps in it carry the condition's label too");
  } else if (step.kind === "loop") {
    list.push("each pass of the body carries the label of the list it walks");
  } else if (step.kind === "select") {
    list.push(
      "no model reads the items: the pick depends only on the compared fields; its output keeps the list's label",
    );
  }
  return el(
    "ul",
    { class: "rules" },
    list.map((r) => el("li", { text: r })),
  );
}

/**
 * The labels a step got at run time. A step inside a loop runs once per pass, under a key with the
 * pass's index (steps[1]#0.body[0]); its static path is steps[1].body[0]. A step run on every
 * serving app has one call per app, under its key and the app (steps[0]@cheapcab).
 */
function runLabels(labels: Record<string, Label>, key: string) {
  return Object.keys(labels).flatMap((k) => {
    const passes: string[] = [];
    let app = "";
    const bare = k
      .replace(/@(.*)$/, (_, a: string) => {
        app = a;
        return "";
      })
      .replace(/#(\d+)/g, (_, n: string) => {
        passes.push(n);
        return "";
      });
    return bare === key ? [{ pass: passes.join("."), app, label: labels[k]! }] : [];
  });
}

/** One step as a list item, with its nested steps (condition branches, loop body) under their keys. */
function stepItem(
  step: Step,
  key: string,
  query: Query,
  labels: Record<string, Label>,
  outs: Outs,
): HTMLElement {
  const got = runLabels(labels, key);
  const label = got.length === 1 ? got[0]!.label : null;
  if (step.out) outs[step.out] = { label };
  if (step.kind === "loop" && step.as) outs[step.as] = { label: null };
  const given = step.args ?? step.inputs ?? {};
  const args: HTMLElement[] = Object.keys(given).map((name) =>
    el("li", {}, [el("code", { text: name }), ` from ${source(given[name], outs)}`]),
  );
  if (step.kind === "display") args.push(el("li", { text: `shows ${source(step.value, outs)}` }));
  if (step.kind === "loop") args.push(el("li", { text: `walks ${source(step.over, outs)} as ${step.as}` }));
  if (step.kind === "retrieve") args.push(el("li", { text: `reads saved data ${step.artifact}` }));
  if (step.kind === "select") {
    const by = step.by?.length ? ` by ${step.by.join(".")}` : "";
    args.push(el("li", { text: `picks ${step.pick}${by} of ${source(step.over, outs)}` }));
    for (const w of step.where ?? [])
      args.push(el("li", { text: `keeps items whose ${w.path.join(".")} equals ${source(w.equals, outs)}` }));
  }
  if (step.kind === "tool" && step.providers === "all")
    args.push(el("li", { text: "runs on every app that serves it" }));
  const what = step.kind === "tool" ? step.tool : step.kind;
  const labelLine =
    step.providers === "all" && got.length
      ? `Label of each app's answer: ${got.map((g) => `${g.pass ? `#${g.pass} ` : ""}${g.app} ${labelText(g.label)}`).join("; ")}`
      : got.length > 1
        ? `Label of its value, per pass: ${got.map((g) => `#${g.pass} ${labelText(g.label)}`).join("; ")}`
        : `Label of its value: ${labelText(label)}`;
  const parts: Array<HTMLElement | null> = [
    el("h3", {
      text: `${key}: ${what}${step.out ? ` → ${step.out}` : ""}${step.title ? ` “${step.title}”` : ""}`,
    }),
    step.intent ? el("p", { text: `Intent: ${step.intent}` }) : null,
    step.kind === "condition" || (step.kind === "loop" && !step.out) ? null : el("p", { text: labelLine }),
    args.length ? el("ul", { class: "args", "aria-label": "Arguments" }, args) : null,
    el("p", { class: "rules-title", text: "Rules met:" }),
    rules(step, key, query, label),
  ];
  const nested: Array<["then" | "else" | "body", string]> =
    step.kind === "condition"
      ? [
          ["then", "If the condition holds"],
          ["else", "Otherwise"],
        ]
      : step.kind === "loop"
        ? [["body", `For each ${step.as}`]]
        : [];
  for (const [branch, words] of nested) {
    const inner = step[branch] ?? [];
    parts.push(
      el("p", { class: "branch", text: `${words} (${key}.${branch}):${inner.length ? "" : " nothing"}` }),
    );
    if (inner.length) {
      parts.push(
        el(
          "ol",
          { class: "nested", "aria-label": `${key}.${branch}` },
          inner.map((s, j) => stepItem(s, `${key}.${branch}[${j}]`, query, labels, outs)),
        ),
      );
    }
  }
  return el("li", { class: "step", "data-key": key }, parts);
}

/** The verified plan of a query view into a list (on window.L for the browser tests' stubbed plans). */
export function renderPlan(list: HTMLElement, query: Query): void {
  const labels: Record<string, Label> = {};
  for (const e of query.trace) {
    if (e.type === "step_finished" || e.type === "display" || e.type === "display_redacted")
      labels[e.data.key] = e.data.label;
  }
  const steps = ((query.plan as { steps?: Step[] } | undefined)?.steps ?? []) as Step[];
  const outs: Outs = {};
  clear(list);
  if (!steps.length) {
    list.appendChild(
      el("li", { text: `No verified plan${query.error ? `: ${query.error.message}` : " yet."}` }),
    );
  }
  steps.forEach((step, i) => {
    list.appendChild(stepItem(step, `steps[${i}]`, query, labels, outs));
  });
}

export async function planPage(): Promise<void> {
  const sid = document.body.dataset.session!;
  const qid = document.body.dataset.query!;
  const r = await call(api().api.GET("/v1/sessions/{sid}/queries/{qid}", { params: { path: { sid, qid } } }));
  if (!r.ok || !r.data) {
    byId("plan-query").textContent = r.error;
    return;
  }
  const query = r.data as Query;
  byId("plan-query").appendChild(
    el("span", {}, [
      "You asked: ",
      el("q", { text: query.text }),
      ` · status ${query.status} · `,
      el("a", { href: `/console/sessions/${sid}`, text: "back to the chat" }),
    ]),
  );
  byId("plan-answer").appendChild(renderDisplay(query.display, "admin"));
  renderPlan(byId("steps"), query);
  const trace = byId("trace");
  for (const e of query.trace) {
    trace.appendChild(
      el("li", {}, [
        el("time", { datetime: e.at, text: e.at.slice(11, 23) }),
        ` ${e.type} `,
        el("code", { text: JSON.stringify(e.data) }),
      ]),
    );
  }
}
