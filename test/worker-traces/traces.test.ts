/**
 * A consent query as one OpenTelemetry trace, exported over OTLP/HTTP (JSON) to the local receiver
 * fixture (test/fixtures/otlp-receiver.ts): it continues the frontend's `traceparent`, its spans
 * hang query → plan → verify, query → step → app_call, step → consent, and no span attribute
 * carries a value. Control for the last: the planted string is in the query's stored answer.
 */
import { env as bindings } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api } from "../worker/helpers.ts";
import {
  ask,
  display,
  hubWorld,
  INVITE_PLAN,
  lit,
  OWN_BOOK,
  openSession,
  pendingConsents,
  qllm,
  ref,
  script,
  settle,
  tool,
  withInvite,
} from "../worker/hub-kit.ts";

const env = bindings as unknown as { TEST_OTLP_RECEIVER: string; TEST_PRINT_TRACE?: string };

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: Array<{ key: string; value: Record<string, unknown> }>;
}
interface OtlpRequest {
  resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
}

const RECEIVER = env.TEST_OTLP_RECEIVER;

async function received(traceId: string): Promise<{ spans: OtlpSpan[]; bodies: string }> {
  const res = await fetch(`${RECEIVER}/received`);
  const all = (await res.json()) as OtlpRequest[];
  const spans = all
    .flatMap((r) => r.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)))
    .filter((s) => s.traceId === traceId);
  return { spans, bodies: JSON.stringify(all) };
}

function attr(span: OtlpSpan | undefined, key: string): unknown {
  const found = span?.attributes?.find((a) => a.key === key)?.value;
  return found ? Object.values(found)[0] : undefined;
}

describe("a consent query's trace", () => {
  it("ignores a malformed traceparent: the query starts, in a trace of its own", async () => {
    const w = await hubWorld(["contacts", "calendar"], withInvite(OWN_BOOK));
    await script(w.models.planner, [{ respond: INVITE_PLAN }]);
    const sid = await openSession(w);
    const bad = "00-zzzz-not-a-trace-01";
    const qid = await ask(w, sid, "Invite my landlord to a Flat viewing on 2026-10-05", { traceparent: bad });
    expect((await settle(w, sid, qid)).status).toBe("awaiting_consent");
    // Its spans so far (admission, plan, verify, the first step) share one new trace.
    let ids = new Set<string>();
    for (let i = 0; i < 50 && ids.size === 0; i++) {
      const res = await fetch(`${RECEIVER}/received`);
      const all = (await res.json()) as OtlpRequest[];
      const spans = all.flatMap((r) =>
        r.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)),
      );
      const mine = spans.filter((s) =>
        s.attributes?.some((a) => a.key === "lattice.query_id" && a.value.stringValue === qid),
      );
      ids = new Set(mine.map((s) => s.traceId));
      if (!ids.size) await new Promise((r) => setTimeout(r, 100));
    }
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(/^[0-9a-f]{32}$/);
  });

  it("continues the frontend's traceparent, with every span and no value", async () => {
    const traceId = crypto.randomUUID().replaceAll("-", "");
    const frontendSpan = "00f067aa0ba902b7";
    const planted = `PLANTED${crypto.randomUUID().slice(0, 8)}`;
    const w = await hubWorld(["contacts", "calendar"], withInvite(OWN_BOOK));
    await script(w.models.planner, [{ respond: INVITE_PLAN }]);
    const sid = await openSession(w);
    const text = `Invite my landlord to a Flat viewing on 2026-10-05 ${planted}`;
    const qid = await ask(w, sid, text, { traceparent: `00-${traceId}-${frontendSpan}-01` });
    expect((await settle(w, sid, qid)).status).toBe("awaiting_consent");
    const [consent] = await pendingConsents(w, sid);
    // An app's output: the landlord's address the contacts app answered, shown in the consent.
    const address = /[\w.+-]+@[\w.-]+/.exec(JSON.stringify(consent!.data))?.[0];
    expect(address).toBeDefined();
    const answered = await api("POST", `/v1/sessions/${sid}/consents/${consent!.id}`, {
      key: w.frontend,
      body: { decision: "allow", scope: "once" },
    });
    expect(answered.status).toBe(200);
    expect((await settle(w, sid, qid)).status).toBe("completed");

    let got = await received(traceId);
    for (let i = 0; i < 50 && !got.spans.some((s) => s.name === "lattice.query"); i++) {
      await new Promise((r) => setTimeout(r, 100));
      got = await received(traceId);
    }
    const { spans } = got;
    const one = (name: string) => spans.filter((s) => s.name === name);
    const [query] = one("lattice.query");
    expect(query, JSON.stringify(spans.map((s) => s.name))).toBeDefined();
    // The frontend's span is the parent of the Worker's request span, and that the query's: the
    // product's trace goes on through Lattice.
    const request = one("lattice.request").find((s) => s.spanId === query!.parentSpanId);
    expect(request, "the query hangs under the request that started it").toBeDefined();
    expect(request!.parentSpanId).toBe(frontendSpan);
    expect(attr(request, "http.route")).toBe("/v1/sessions/:sid/queries");
    expect(attr(request, "http.request.method")).toBe("POST");
    expect(attr(request, "http.response.status_code")).toBe(202);
    expect(attr(query, "lattice.query.status")).toBe("completed");
    const under = (parent: OtlpSpan, name: string) =>
      one(name).filter((s) => s.parentSpanId === parent.spanId);
    expect(under(query!, "lattice.admission")).toHaveLength(1);
    const [plan] = under(query!, "lattice.plan");
    expect(attr(plan, "lattice.verdict")).toBe("accepted");
    expect(under(plan!, "lattice.verify")).toHaveLength(1);
    const steps = under(query!, "lattice.step");
    expect(steps.map((s) => attr(s, "lattice.step.tool")).sort()).toEqual([
      "calendar.create_event",
      "contacts.lookup",
    ]);
    const carried = (await (await fetch("http://network.test/traceparents")).json()) as Record<
      string,
      string
    >;
    for (const step of steps) {
      const [call] = under(step, "lattice.app_call");
      expect(attr(call, "lattice.outcome")).toBe("ok");
      // The app was sent the app-call span as its parent: its own spans continue this trace.
      expect(carried[attr(call, "lattice.call_id") as string]).toBe(`00-${traceId}-${call!.spanId}-01`);
      expect(attr(call, "lattice.app.version")).toBe(1);
      expect(attr(step, "lattice.label.confidentiality")).toEqual(expect.any(String));
    }
    const invite = steps.find((s) => attr(s, "lattice.step.tool") === "calendar.create_event")!;
    // The gate asks before the step runs: the consent hangs under the query, the step says it was consented.
    expect(attr(invite, "lattice.verdict")).toBe("consented");
    const [asked] = under(query!, "lattice.consent");
    expect(attr(asked, "lattice.step.key")).toBe(attr(invite, "lattice.step.key"));
    expect(attr(asked, "lattice.consent.kind")).toBe("data_share");
    expect(attr(asked, "lattice.consent.decision")).toBe("allow");
    expect(attr(asked, "lattice.consent.wait_ms")).toEqual(expect.any(Number));
    // Every span of the query is in the one trace, and a value is in none of them.
    expect(got.bodies).not.toContain(planted);
    expect(got.bodies).not.toContain("Flat viewing");
    expect(got.bodies).not.toContain(address);
    // Control: the planted string is in the query as stored, so its absence above is the trace's doing.
    const stored = await api("GET", `/v1/sessions/${sid}/queries/${qid}`, { key: w.frontend });
    expect(JSON.stringify(stored.body)).toContain(planted);
    expect(JSON.stringify(stored.body)).toContain(address);
    if (env.TEST_PRINT_TRACE) console.log(JSON.stringify(spans));
  });

  it("continues the traceparent a chat frontend sends, through the OpenAI-compatible route, to the q-llm", async () => {
    const traceId = crypto.randomUUID().replaceAll("-", "");
    const frontendSpan = "b7ad6b7169203331";
    const w = await hubWorld(["contacts"]);
    const lookup = {
      steps: [
        tool("landlord", "contacts.lookup", { name: lit("landlord") }),
        qllm("city", { contact: ref("landlord") }, "The landlord's city", { city: { type: "string" } }),
        display(ref("city"), "City"),
      ],
    };
    const city = `Q${crypto.randomUUID().slice(0, 8)}`;
    await script(w.models.planner, [{ when: "landlord", respond: lookup }]);
    await script(w.models.qllm, [{ respond: { city } }]);
    const res = await api("POST", "/v1/openai/chat/completions", {
      key: w.frontend,
      headers: { traceparent: `00-${traceId}-${frontendSpan}-01` },
      body: { model: "lattice", user: "alex", messages: [{ role: "user", content: "Who is my landlord?" }] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const qid = (res.body as { lattice: { queryId: string; status: string } }).lattice.queryId;
    let got = await received(traceId);
    // The request's span ends when its answer starts, after the query's (non-streamed, the turn waited).
    const has = (name: string) => got.spans.some((s) => s.name === name);
    for (let i = 0; i < 50 && !(has("lattice.query") && has("lattice.request")); i++) {
      await new Promise((r) => setTimeout(r, 100));
      got = await received(traceId);
    }
    const query = got.spans.find((s) => s.name === "lattice.query");
    expect(query, JSON.stringify(got.spans.map((s) => s.name))).toBeDefined();
    expect(attr(query, "lattice.query_id")).toBe(qid);
    const request = got.spans.find((s) => s.spanId === query!.parentSpanId);
    expect(request?.name).toBe("lattice.request");
    expect(attr(request, "http.route")).toBe("/v1/openai/chat/completions");
    expect(request!.parentSpanId).toBe(frontendSpan);
    // The q-llm step's model call is the vanilla spoke's span, under the step: which model, its
    // tokens, never what it read or answered.
    const step = got.spans.find((s) => s.name === "lattice.step" && attr(s, "lattice.step.kind") === "qllm");
    const model = got.spans.find((s) => s.name === "lattice.qllm");
    expect(model?.parentSpanId).toBe(step?.spanId);
    expect(attr(model, "gen_ai.request.model")).toBe(w.models.qllm);
    expect(attr(model, "lattice.qllm.tokens")).toEqual(expect.any(Number));
    expect(attr(model, "lattice.outcome")).toBe("ok");
    expect(got.bodies).not.toContain(city);
    // Control: the answer is the q-llm's, shown to the user.
    expect(JSON.stringify(res.body)).toContain(city);
  });

  it("passes on a trace its frontend did not sample, and records none of it", async () => {
    const w = await hubWorld(["contacts"]);
    const lookup = {
      steps: [tool("landlord", "contacts.lookup", { name: lit("landlord") }), display(ref("landlord"))],
    };
    await script(w.models.planner, [{ when: "landlord", respond: lookup }]);
    const sid = await openSession(w);
    const unsampled = crypto.randomUUID().replaceAll("-", "");
    const first = await ask(w, sid, "Who is my landlord?", {
      traceparent: `00-${unsampled}-b7ad6b7169203331-00`,
    });
    expect((await settle(w, sid, first)).status).toBe("completed");
    // Control: the same query, sampled, in the same session (its spans are exported after the first's).
    const traced = crypto.randomUUID().replaceAll("-", "");
    const second = await ask(w, sid, "Who is my landlord?", {
      traceparent: `00-${traced}-b7ad6b7169203331-01`,
    });
    expect((await settle(w, sid, second)).status).toBe("completed");
    let got = await received(traced);
    for (let i = 0; i < 50 && !got.spans.some((s) => s.name === "lattice.query"); i++) {
      await new Promise((r) => setTimeout(r, 100));
      got = await received(traced);
    }
    expect(got.spans.map((s) => s.name)).toEqual(
      expect.arrayContaining(["lattice.request", "lattice.query", "lattice.app_call"]),
    );
    expect((await received(unsampled)).spans).toEqual([]);
  });

  it("records no span of a request no credential answered for; control: the same request with a key", async () => {
    const w = await hubWorld([]);
    const anonymous = crypto.randomUUID().replaceAll("-", "");
    const refused = await api("GET", "/v1/admin/keys", {
      key: "lk.tn_0000000000000000.not-a-key",
      headers: { traceparent: `00-${anonymous}-b7ad6b7169203331-01` },
    });
    expect(refused.status).toBe(401);
    const keyed = crypto.randomUUID().replaceAll("-", "");
    const answered = await api("GET", "/v1/admin/keys", {
      key: w.tenant.adminKey,
      headers: { traceparent: `00-${keyed}-b7ad6b7169203331-01` },
    });
    expect(answered.status).toBe(200);
    let got = await received(keyed);
    for (let i = 0; i < 50 && !got.spans.length; i++) {
      await new Promise((r) => setTimeout(r, 100));
      got = await received(keyed);
    }
    expect(got.spans.map((s) => [s.name, attr(s, "http.route")])).toEqual([
      ["lattice.request", "/v1/admin/keys"],
    ]);
    expect((await received(anonymous)).spans).toEqual([]);
  });
});
