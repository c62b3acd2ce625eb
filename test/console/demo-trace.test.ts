/**
 * The demo's consent query as one trace (docs/traces.md's example): "Pay the plumber's bill" asked
 * through the OpenAI-compatible chat route with a frontend `traceparent`, against the API under
 * `wrangler dev` as `npm start` runs it (a second API of this test's own, exporting to a local OTLP
 * receiver fixture), its demo tenant seeded as `npm start` seeds it, the payment's consent answered.
 * The spans hang frontend → request → query → plan, steps (with the q-llm's model call and the
 * apps' calls), consent, artifacts; no span carries a value (control: the values are in the query
 * as stored). TEST_PRINT_TRACE=1 prints the tree as docs/traces.md shows it.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall } from "../../scripts/lib.ts";
import { type Demo, seedDemo } from "../../scripts/seed.ts";
import { logTails, startWranglerDev, stopGroup, type WranglerDev } from "../../scripts/wrangler-dev.ts";
import { type OtlpReceiver, startOtlpReceiver } from "../fixtures/otlp-receiver.ts";
import { stack } from "./kit.ts";

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: Array<{ key: string; value: Record<string, unknown> }>;
}
interface OtlpRequest {
  resourceSpans: Array<{
    resource: { attributes: Array<{ key: string; value: Record<string, unknown> }> };
    scopeSpans: Array<{ spans: OtlpSpan[] }>;
  }>;
}

const hex = (bytes: number) =>
  Array.from(randomBytes(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
/** What the plumber's mail and contact hold: values no span may carry. */
const PLUMBER_IBAN = "DE18430609671234567800";
const BILL_NUMBER = "KP-2026-114";

function attr(span: OtlpSpan | undefined, key: string): unknown {
  const found = span?.attributes?.find((a) => a.key === key)?.value;
  return found ? Object.values(found)[0] : undefined;
}

/** Each span of the trace with the object that wrote it (its resource's `lattice.object`). */
function spansOf(all: OtlpRequest[], traceId: string): Array<OtlpSpan & { object: string }> {
  return all.flatMap((r) =>
    r.resourceSpans.flatMap((rs) => {
      const object = String(
        Object.values(rs.resource.attributes.find((a) => a.key === "lattice.object")?.value ?? {})[0],
      );
      return rs.scopeSpans.flatMap((ss) =>
        ss.spans.filter((s) => s.traceId === traceId).map((s) => ({ ...s, object })),
      );
    }),
  );
}

/** The tree as docs/traces.md shows it: ids, offsets from the first span, durations, attributes. */
function printed(spans: Array<OtlpSpan & { object: string }>, traceId: string, frontend: string): string {
  const ms = (ns: string) => Number(BigInt(ns) / 1_000_000n);
  const t0 = Math.min(...spans.map((s) => ms(s.startTimeUnixNano)));
  const hidden = new Set(["lattice.query_id", "lattice.call_id", "lattice.consent.id", "lattice.app.id"]);
  const lines = [`trace ${traceId} (frontend span ${frontend})`];
  const walk = (parent: string | undefined, depth: number) => {
    const children = spans
      .filter((s) => s.parentSpanId === parent)
      .sort((a, b) => ms(a.startTimeUnixNano) - ms(b.startTimeUnixNano));
    for (const s of children) {
      const start = ms(s.startTimeUnixNano) - t0;
      const took = ms(s.endTimeUnixNano) - ms(s.startTimeUnixNano);
      const pad = "  ".repeat(depth);
      lines.push(`${pad}${s.name} [${s.object}] +${start}ms ${took}ms`);
      const shown = Object.fromEntries(
        (s.attributes ?? []).filter((a) => !hidden.has(a.key)).map((a) => [a.key, attr(s, a.key)]),
      );
      lines.push(`${pad}  ${JSON.stringify(shown).replaceAll('":', '": ').replaceAll(',"', ', "')}`);
      walk(s.spanId, depth + 1);
    }
  };
  walk(frontend, 0);
  return lines.join("\n");
}

describe("the demo's consent query, as the OTLP receiver gets it", () => {
  let receiver: OtlpReceiver;
  let lattice: WranglerDev;
  let demo: Demo;
  const dir = mkdtempSync(join(tmpdir(), "lattice-demo-trace-"));

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    const operatorSecret = hex(32);
    try {
      lattice = await startWranglerDev({
        config: "wrangler.toml",
        name: "api-traced",
        logDir: dir,
        persistTo: join(dir, "state"),
        vars: (port) => [
          ...["--var", `LATTICE_OPERATOR_SECRET:${operatorSecret}`],
          ...["--var", `LATTICE_KEY_SECRET:${hex(32)}`],
          ...["--var", "LATTICE_MODE:dev", "--var", `LATTICE_PUBLIC_URL:http://127.0.0.1:${port}`],
          ...["--var", `LATTICE_OTLP_ENDPOINT:${receiver.url}/v1/traces`],
        ],
      });
    } catch (e) {
      throw new Error(`${e instanceof Error ? e.message : String(e)}\n${logTails(dir, ["api-traced"])}`);
    }
    // The demo apps of the suite's stack, in a world of this test's own (its own signing secrets).
    const world = `trace-${hex(4)}`;
    demo = await seedDemo({ api: lattice.url, apps: stack().apps, operatorSecret, file: null, world });
  }, 180_000);

  afterAll(async () => {
    if (lattice) await stopGroup(lattice.child);
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  });

  it("is one trace under the frontend's span, with the q-llm, the apps and the consent, and no value", async () => {
    const traceId = hex(16);
    const frontend = hex(8);
    const res = await fetch(`${lattice.url}/v1/openai/chat/completions`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${demo.keys.frontend}`,
        "content-type": "application/json",
        traceparent: `00-${traceId}-${frontend}-01`,
      },
      body: JSON.stringify({
        model: "lattice",
        user: "alex",
        messages: [{ role: "user", content: "Pay the plumber's bill" }],
      }),
    });
    expect(res.status).toBe(200);
    const { lattice: turn } = (await res.json()) as {
      lattice: { sessionId: string; queryId: string; status: string; consents: Array<{ id: string }> };
    };
    expect(turn.status).toBe("awaiting_consent");
    const [consent] = turn.consents;
    const sid = turn.sessionId;
    const key = demo.keys.frontend;
    await apiCall(lattice.url, key, "POST", `/v1/sessions/${sid}/consents/${consent!.id}`, {
      decision: "allow",
      scope: "once",
    });
    let stored: { status: string } = { status: "" };
    for (let i = 0; i < 100 && stored.status !== "completed"; i++) {
      if (i) await new Promise((r) => setTimeout(r, 100));
      stored = (await apiCall(lattice.url, key, "GET", `/v1/sessions/${sid}/queries/${turn.queryId}`)) as {
        status: string;
      };
    }
    expect(stored.status).toBe("completed");

    let spans = spansOf(receiver.received() as OtlpRequest[], traceId);
    for (let i = 0; i < 100 && !spans.some((s) => s.name === "lattice.query"); i++) {
      await new Promise((r) => setTimeout(r, 100));
      spans = spansOf(receiver.received() as OtlpRequest[], traceId);
    }
    const named = (name: string) => spans.filter((s) => s.name === name);
    const under = (parent: OtlpSpan | undefined, name: string) =>
      named(name).filter((s) => s.parentSpanId === parent?.spanId);

    // frontend → the Worker's request → the query.
    const [request] = named("lattice.request").filter((s) => s.parentSpanId === frontend);
    expect(attr(request, "http.route")).toBe("/v1/openai/chat/completions");
    expect(request?.object).toBe("worker");
    const [query] = under(request, "lattice.query");
    expect(attr(query, "lattice.query.status")).toBe("completed");
    expect(under(query, "lattice.plan")).toHaveLength(1);
    const steps = under(query, "lattice.step");
    const tools = steps.map((s) => attr(s, "lattice.step.tool") ?? attr(s, "lattice.step.kind"));
    expect(tools).toEqual(
      expect.arrayContaining(["mail.search", "qllm", "contacts.lookup", "bank.send_money"]),
    );
    // The q-llm read the bill in the vanilla spoke: its model call hangs under its step.
    const readBill = steps.find((s) => attr(s, "lattice.step.kind") === "qllm");
    const [model] = under(readBill, "lattice.qllm");
    expect(model?.object).toBe("spoke");
    expect(attr(model, "gen_ai.provider.name")).toBe("scripted");
    expect(attr(model, "gen_ai.request.model")).toBe("demo");
    // Each app call is its spoke's span under its step.
    for (const step of steps.filter((s) => attr(s, "lattice.step.kind") === "tool"))
      expect(under(step, "lattice.app_call").map((s) => attr(s, "lattice.outcome"))).toEqual(["ok"]);
    // The payment waited for the user's answer: the consent span, and the step says it was consented.
    const [asked] = under(query, "lattice.consent");
    expect(attr(asked, "lattice.consent.decision")).toBe("allow");
    const payment = steps.find((s) => attr(s, "lattice.step.tool") === "bank.send_money");
    expect(attr(payment, "lattice.verdict")).toBe("consented");
    expect(attr(asked, "lattice.step.key")).toBe(attr(payment, "lattice.step.key"));

    // No value in any span: not the query's words, the bill's number or the payee's IBAN.
    const bodies = JSON.stringify(spans);
    for (const value of ["plumber's bill", BILL_NUMBER, PLUMBER_IBAN]) expect(bodies).not.toContain(value);
    // Control: the query as stored holds them (its text, the payment's arguments in its consent).
    const kept = JSON.stringify(stored);
    for (const value of ["plumber's bill", BILL_NUMBER, PLUMBER_IBAN]) expect(kept).toContain(value);
    if (process.env.TEST_PRINT_TRACE) {
      console.log(printed(spans, traceId, frontend));
      const { object: _, ...raw } = model!;
      console.log(JSON.stringify(raw, null, 2));
    }
  });
});
