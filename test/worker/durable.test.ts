import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { QueryRecord } from "../../src/objects/hub/store.ts";
import { hubObjectName } from "../../src/objects/names.ts";
import { rpc } from "../../src/objects/rpc.ts";
import { policyLattices } from "../../src/policy/index.ts";
import { type LoadedQuery, loadQuery } from "../../src/runtime/index.ts";
import { worldState } from "./demo.ts";
import type { HubDO } from "./entry.ts";
import { api } from "./helpers.ts";
import {
  ask,
  display,
  type HubWorld,
  hubWorld,
  lit,
  openSession,
  ref,
  script,
  settle,
  tool,
} from "./hub-kit.ts";

const PLAN = {
  steps: [
    tool("landlord", "contacts.lookup", { name: lit("landlord") }),
    tool("events", "calendar.list_events", {}),
    tool("files", "drive.list", {}),
    {
      kind: "qllm",
      out: "summary",
      inputs: { events: ref("events"), files: ref("files") },
      prompt: "Count the events and files.",
      schema: { type: "object", properties: { events: { type: "number" }, files: { type: "number" } } },
      intent: "summarise",
      semantics: "counts of events and files",
    },
    display(ref("landlord", "name"), "Landlord"),
    display(ref("summary"), "Counts"),
  ],
};

async function world(): Promise<HubWorld> {
  const w = await hubWorld(["contacts", "calendar", "drive"]);
  await script(w.models.planner, [{ respond: PLAN }]);
  await script(w.models.qllm, [{ respond: { events: 3, files: 4 } }]);
  return w;
}

/** PLAN's query in a new session, stepped by hand (each advance is called by the test). */
async function manualQuery() {
  const w = await world();
  const sid = await openSession(w);
  const stub = env.HUB.getByName(hubObjectName(w.tenant.tenantId, sid));
  const hub = rpc<HubDO>(stub);
  const started = await hub.startQuery("who is my landlord, and counts", null, { stepping: "manual" });
  return { w, sid, stub, hub, qid: (started as { query: { id: string } }).query.id };
}

type Shown = Array<{ title: string | null; value?: unknown }>;
const shown = (display: Shown) => display.map(({ title, value }) => ({ title, value }));

describe("durable execution", () => {
  it("survives eviction at every step boundary: same result, each app call exactly once", async () => {
    // The reference: the same plan, run by alarms without interference.
    const reference = await world();
    const refSid = await openSession(reference);
    const expected = await settle(
      reference,
      refSid,
      await ask(reference, refSid, "who is my landlord, and counts"),
    );
    expect(expected.status).toBe("completed");

    const { w, sid, stub, hub, qid } = await manualQuery();

    const instances: string[] = [];
    for (let advances = 0; ; advances++) {
      expect(advances).toBeLessThan(20);
      instances.push(await hub.instanceId());
      const view = await hub.advance(qid);
      if (view && view.status !== "planning" && view.status !== "running") break;
      await evictDurableObject(stub); // every boundary: the next step runs in a fresh instance
    }
    // planning + 4 effects (3 tool calls, 1 q-llm) + the final advance that completes: each in its own instance.
    expect(instances.length).toBeGreaterThanOrEqual(5);
    expect(new Set(instances).size).toBe(instances.length);

    const res = await api("GET", `/v1/sessions/${sid}/queries/${qid}`, { key: w.frontend });
    const q = res.body as { status: string; display: Shown };
    expect(q.status).toBe("completed");
    expect(shown(q.display)).toEqual(shown(expected.display));

    const calls = (await worldState(w.world)).calls;
    expect(calls.map((c) => `${c.app}.${c.functionality}`).sort()).toEqual([
      "calendar.list_events",
      "contacts.lookup",
      "drive.list",
    ]);
    expect(calls.every((c) => !c.repeat && c.verified)).toBe(true);
  });

  it("advances a query once at a time though it starts before its alarm fires, and the alarm then finds it", async () => {
    // The hub starts a query's work right after accepting it and leaves the alarm set: the two must
    // take turns, or one step would be run twice (the app sees a repeated idempotency key).
    const w = await hubWorld(["contacts"]);
    const names = Array.from({ length: 12 }, (_, i) => (i % 2 ? "landlord" : "accountant"));
    await script(w.models.planner, [
      {
        respond: {
          steps: [
            ...names.map((name, i) => tool(`c${i}`, "contacts.lookup", { name: lit(name) })),
            display(ref("c11")),
          ],
        },
      },
    ]);
    const sid = await openSession(w);
    const qid = await ask(w, sid, "look up twelve people");
    // The alarm run at once, while the early advance is under way (not left to when it fires).
    await runDurableObjectAlarm(env.HUB.getByName(hubObjectName(w.tenant.tenantId, sid)));
    const done = await settle(w, sid, qid);
    expect([done.status, (done as { error?: unknown }).error ?? null]).toEqual(["completed", null]);
    const calls = (await worldState(w.world)).calls;
    expect(calls).toHaveLength(12);
    expect(calls.filter((c) => c.repeat)).toEqual([]);
  });

  it("never repeats an irreversible call that was interrupted, and says so", async () => {
    const w = await hubWorld(["bank"], {
      tools: { "bank.send_money": { minInputIntegrity: "untrusted" } },
    });
    await script(w.models.planner, [
      {
        respond: {
          steps: [
            tool("paid", "bank.send_money", {
              recipient: lit("DE89370400440532013000"),
              amount: lit(5),
              subject: lit("x"),
            }),
            display(ref("paid")),
          ],
        },
      },
    ]);
    const sid = await openSession(w);
    const stub = env.HUB.getByName(hubObjectName(w.tenant.tenantId, sid));
    const hub = rpc<HubDO>(stub);
    const started = await hub.startQuery("send 5 to DE89370400440532013000", null, { stepping: "manual" });
    const qid = (started as { query: { id: string } }).query.id;
    await hub.advance(qid); // planning
    // Simulate a crash after "started" was recorded and before the answer came back.
    await runInHub(stub, qid);
    await evictDurableObject(stub);
    const view = await hub.advance(qid);
    expect(view?.status).toBe("failed");
    expect(view?.error?.code).toBe("interrupted_irreversible_call");
    expect((await worldState(w.world)).calls).toEqual([]);
  });
});

async function runInHub(stub: DurableObjectStub, qid: string): Promise<void> {
  const { runInDurableObject } = await import("cloudflare:test");
  await runInDurableObject(stub, (_instance, state) => {
    state.storage.sql.exec(
      "INSERT INTO journal (query_id, key, kind, state, info) VALUES (?, 'steps[0]', 'tool', 'started', '{}')",
      qid,
    );
  });
}

describe("a query just planned", () => {
  it("runs as it would be read back: the plan it holds equals loadQuery's of the stored rows", async () => {
    const { stub, hub, qid } = await manualQuery();
    expect((await hub.advance(qid))?.status).toBe("running"); // planned, no step run yet
    const { held, read } = await runInDurableObject(stub, (instance) => {
      type Held = { from: string; query: LoadedQuery };
      const hubParts = instance as unknown as {
        lifecycle: { loaded: Map<string, Held> };
        store: { query(id: string): QueryRecord | null };
      };
      const row = hubParts.store.query(qid)!;
      return {
        held: hubParts.lifecycle.loaded.get(qid),
        read: { from: `${row.plan}\u0000${row.context}`, query: loadQuery(row) },
      };
    });
    expect(held).toBeDefined(); // control: without the seeding, nothing is held until the next advance
    const { lattices, context, ...rest } = held!.query;
    expect(held!.from).toBe(read.from);
    const { text, picks, plan, verdict } = read.query;
    expect(rest).toEqual({ text, picks, plan, verdict });
    // Loading drops the policy's model settings (no key is stored with a query); nothing runs on them.
    expect({ ...context, policy: { ...context.policy, models: {} } }).toEqual(read.query.context);
    // The very lattices the plan's labels were interned in (a re-read makes its own, equal ones).
    expect(lattices).toBe(policyLattices(context.policy));
    expect(JSON.stringify(lattices)).toBe(JSON.stringify(read.query.lattices));
  });
});
