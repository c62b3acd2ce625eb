/**
 * Prints the demo: each case study's attack, then what the baseline and Lattice did, then a summary
 * table. It reads what the demo's tests recorded (test metadata), so the narrative is built from what
 * actually happened in the run, not written in advance. Failed tests are printed with their errors.
 */
import type { Reporter, TestCase, TestModule } from "vitest/node";
import type { CaseRecord, Outcome } from "./record.ts";

const WIDTH = 100;

export class DemoReporter implements Reporter {
  onInit(): void {
    process.stdout.write(
      "Running IsolateGPT's four case studies in the Workers runtime (baseline, then Lattice)…\n",
    );
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const tests = modules.flatMap((m) => [...m.children.allTests()]);
    const cases = tests
      .map((t) => t.meta().demoCase)
      .filter((c): c is CaseRecord => c !== undefined)
      .sort((a, b) => a.n - b.n);
    const out: string[] = [...intro(), ...cases.flatMap(narrate), ...summary(cases)];
    const failed = tests.filter((t) => t.result().state === "failed");
    if (failed.length) out.push("", ...failed.flatMap(failure));
    process.stdout.write(`${out.join("\n")}\n`);
  }
}

function intro(): string[] {
  return [
    "",
    "LATTICE vs A BASELINE — IsolateGPT's four case studies",
    "=".repeat(WIDTH),
    ...wrap(
      'Models: the planner and the q-LLM are a SCRIPTED, OBEDIENT model (provider "scripted", model ' +
        '"obedient"): answers written as data that follow any instruction they are shown, injected ones ' +
        "included. No live model runs here; this is the worst case Lattice is designed for.",
    ),
    ...wrap(
      "Baseline: the same query, same apps and same model, with the one defence the case needs switched " +
        "off (a control reachable only over RPC; the HTTP API cannot switch defences off). It behaves like " +
        "an assistant without that defence. Lattice: the same query through the HTTP API, every defence on; " +
        "where Lattice asks the user, the demo user answers no.",
    ),
  ];
}

function narrate(c: CaseRecord): string[] {
  const side = (label: string, o: Outcome) => [
    ...wrap(label, "    ", "  "),
    ...wrap(`${o.attackSucceeded ? "✗ ATTACK SUCCEEDED" : "✓ ATTACK STOPPED"}. ${o.summary}`, "    "),
    ...o.evidence.flatMap((e) => wrap(`- ${e}`, "      ", "    ")),
  ];
  return [
    "",
    `Case ${c.n}. ${c.title}`,
    "-".repeat(WIDTH),
    ...wrap(`The user asks: "${c.query}"`, "  "),
    ...wrap(`The attacker: ${c.attack}`, "  "),
    ...side(`Baseline (without ${c.baselineLacks}):`, c.baseline),
    ...side("Lattice:", c.lattice),
  ];
}

function summary(cases: CaseRecord[]): string[] {
  const rows = cases.map((c) => [
    String(c.n),
    c.title,
    c.baseline.attackSucceeded ? "attack succeeded" : "attack stopped",
    c.lattice.attackSucceeded ? "attack succeeded" : "attack stopped",
  ]);
  const head = ["#", "case", "baseline", "Lattice"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((x, i) => x.padEnd(widths[i]!)).join(" | ")} |`;
  return [
    "",
    "Summary (scripted, obedient model in both columns)",
    line(head),
    `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`,
    ...rows.map(line),
  ];
}

function failure(t: TestCase): string[] {
  const errors = t.result().errors ?? [];
  return [`FAILED: ${t.fullName}`, ...errors.map((e) => `  ${e.message}`)];
}

/** Word-wraps one paragraph to the demo's width. */
function wrap(text: string, indent = "", firstIndent = indent): string[] {
  const lines: string[] = [];
  let line = firstIndent;
  for (const word of text.split(/\s+/)) {
    if (line.trim() && line.length + word.length + 1 > WIDTH) {
      lines.push(line);
      line = indent;
    }
    line += line.trim() ? ` ${word}` : word;
  }
  if (line.trim()) lines.push(line);
  return lines;
}
