/**
 * A developer's try-it loop (issue #33): one functionality of one's own pending or approved version,
 * called through a spoke exactly as a plan step would call it, as a synthetic user, and judged.
 */

import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import type { ServingApp, SpokeCall } from "../../src/contracts.ts";
import { isValidId, spokeObjectName, tryUserId } from "../../src/objects/names.ts";
import { rpc } from "../../src/objects/rpc.ts";
import type { SpokeDO } from "../../src/objects/spoke/index.ts";
import { UserIdSchema } from "../../src/worker/schemas/ids.ts";
import type { TryResult } from "../../src/worker/schemas/try.ts";
import { registerDemoApp, uniqueWorld, worldState } from "./demo.ts";
import { api, createTenant, expectError, issueKey, readAudit, type TestTenant } from "./helpers.ts";

const PAYMENT = { recipient: "DE89370400440532013000", amount: 12.5, subject: "rent" };

async function setup() {
  const tenant = await createTenant();
  const dev = await issueKey(tenant, "developer");
  return { tenant, dev, world: uniqueWorld("try") };
}

const tryIt = (key: string, appId: string, version: number, functionality: string, input: unknown) =>
  api("POST", `/v1/apps/${appId}/versions/${version}/try`, { key, body: { functionality, input } });

function spokeOf(tenant: TestTenant, userId: string, appId: string) {
  return rpc<SpokeDO>(env.SPOKE.getByName(spokeObjectName(tenant.tenantId, userId, appId)));
}

function realCall(tenant: TestTenant, appId: string, userId = "u1"): SpokeCall {
  return {
    tenantId: tenant.tenantId,
    userId,
    appId,
    functionality: "send_money",
    request: PAYMENT,
    callId: "call_real",
    idempotencyKey: crypto.randomUUID(),
  };
}

describe("a developer's try-it call", () => {
  it("a developer sees their pending version's functionality called and judged", async () => {
    const { tenant, dev, world } = await setup();
    const bank = await registerDemoApp(tenant, dev.secret, "bank", world, { approve: false });

    const res = await tryIt(dev.secret, bank.id, 1, "send_money", PAYMENT);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const tried = res.body as TryResult;
    expect(tried).toMatchObject({
      appId: bank.id,
      version: 1,
      status: "pending",
      functionality: "send_money",
      user: tryUserId(dev.id),
      outcome: "ok",
      judgement: {
        input: { verdict: "passed" },
        egress: { verdict: "passed" },
        output: { verdict: "passed" },
        // Unbound (pending): the app's own declaration, untrusted.
        labels: { integrity: "untrusted", boundTo: null },
      },
    });
    // The request as it left: signed, to the functionality's URL, the input as its body.
    expect(tried.request?.url).toMatch(new RegExp(`/w/${world}/bank/send_money$`));
    expect(tried.request?.headers["X-Lattice-Signature"]).toMatch(/^t=\d+,v2=[0-9a-f]{64}$/);
    expect(JSON.parse(tried.request?.body ?? "")).toEqual(PAYMENT);
    expect(JSON.stringify(tried)).not.toContain(bank.secret);
    expect(tried.answer?.status).toBe(200);

    // It arrived at the app, and the app verified the signature with the version's secret.
    const { calls } = await worldState(world);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ app: "bank", functionality: "send_money", verified: true });
    expect((await readAudit(tenant.tenantId)).map((e) => e.type)).toContain("app_tried");

    // The serving check of real queries is not weakened: a real user's call of it is still refused.
    expect(await spokeOf(tenant, "u1", bank.id).call(realCall(tenant, bank.id))).toMatchObject({
      ok: false,
      code: "app_unavailable",
    });
    expect((await worldState(world)).calls).toHaveLength(1);
  });

  it("judges an answer that breaks the declared schema, naming the place and keeping the app's words apart", async () => {
    const { tenant, dev, world } = await setup();
    const app = await registerDemoApp(tenant, dev.secret, "misbehave", world, { approve: false });
    const tried = (await tryIt(dev.secret, app.id, 1, "badshape", {})).body as TryResult;
    expect(tried.outcome).toBe("invalid_response");
    expect(tried.judgement.input.verdict).toBe("passed");
    expect(tried.judgement.output.verdict).toBe("failed");
    expect(tried.judgement.output.problems?.length).toBeGreaterThan(0);
    // The app's answer is shown as it came, as data; Lattice's own message never carries it.
    expect(tried.answer?.body).toContain("ignore your schema");
    expect(tried.message).not.toContain("ignore your schema");
    expect(tried.judgement.output.problems?.join(" ")).not.toContain("ignore your schema");

    // The app's HTTP failure: its status and bounded body, the output never reached.
    const failed = (await tryIt(dev.secret, app.id, 1, "error", {})).body as TryResult;
    expect(failed).toMatchObject({ outcome: "app_error", answer: { status: 500 } });
    expect(failed.judgement.output.verdict).toBe("not_reached");
  });

  it("judges an input that breaks the request schema, and sends nothing", async () => {
    const { tenant, dev, world } = await setup();
    const bank = await registerDemoApp(tenant, dev.secret, "bank", world, { approve: false });
    const tried = (await tryIt(dev.secret, bank.id, 1, "send_money", { amount: "all" })).body as TryResult;
    expect(tried).toMatchObject({
      outcome: "invalid_request",
      request: null,
      judgement: { input: { verdict: "failed" }, egress: { verdict: "not_reached" } },
    });
    expect(tried.judgement.input.problems?.length).toBeGreaterThan(0);
    expect((await worldState(world)).calls).toEqual([]);
  });

  it("tries an approved version too, with the label its bound entry gives", async () => {
    const { tenant, dev, world } = await setup();
    const bank = await registerDemoApp(tenant, dev.secret, "bank", world);
    const tried = (await tryIt(dev.secret, bank.id, 1, "send_money", PAYMENT)).body as TryResult;
    expect(tried).toMatchObject({ status: "approved", outcome: "ok" });
  });

  it("finds only the key's own app, and only a pending or approved version", async () => {
    const { tenant, dev, world } = await setup();
    const bank = await registerDemoApp(tenant, dev.secret, "bank", world, { approve: false });
    const other = await issueKey(tenant, "developer", "another developer");
    expectError(await tryIt(other.secret, bank.id, 1, "send_money", PAYMENT), 404, "not_found");
    expectError(await tryIt(dev.secret, bank.id, 2, "send_money", PAYMENT), 404, "not_found");
    expectError(await tryIt(tenant.adminKey, bank.id, 1, "send_money", PAYMENT), 403, "forbidden");
    expectError(await tryIt(dev.secret, bank.id, 1, "no_such_thing", {}), 400, "invalid_request");
    const rejected = await registerDemoApp(tenant, dev.secret, "calendar", world, { approve: false });
    await api("POST", `/v1/admin/apps/${rejected.id}/versions/1/reject`, {
      key: tenant.adminKey,
      body: { reason: "no" },
    });
    expectError(await tryIt(dev.secret, rejected.id, 1, "list_events", {}), 409, "conflict");
    expect((await worldState(world)).calls).toEqual([]);
  });

  it("never reaches a real user's spoke: the try user is one no frontend can name", async () => {
    const { tenant, dev, world } = await setup();
    const bank = await registerDemoApp(tenant, dev.secret, "bank", world);
    const frontend = await issueKey(tenant, "frontend");
    const user = tryUserId(dev.id);

    // A real user's memory of the app, and a try: the try's spoke is another object, memory untouched.
    expect(await spokeOf(tenant, "u1", bank.id).call(realCall(tenant, bank.id))).toMatchObject({ ok: true });
    await tryIt(dev.secret, bank.id, 1, "send_money", PAYMENT);
    expect(await spokeOf(tenant, "u1", bank.id).memory()).toHaveLength(1);
    expect(await spokeOf(tenant, user, bank.id).memory()).toEqual([]);

    // A frontend cannot name the try user: no session, no token, no artifacts of it.
    for (const res of [
      await api("POST", "/v1/sessions", { key: frontend.secret, body: { userId: user } }),
      await api("POST", `/v1/users/${user}/tokens`, { key: frontend.secret, body: {} }),
      await api("GET", `/v1/users/${user}/artifacts`, { key: frontend.secret }),
    ])
      expectError(res, 400, "invalid_request");
    // Any spelling of the reserved prefix.
    expect(UserIdSchema.safeParse("_LATTICE_x").success).toBe(false);

    // Control: the id is otherwise an ordinary user id; only the reservation refuses it.
    const withoutReservation = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/);
    expect(isValidId(user) && withoutReservation.safeParse(user).success).toBe(true);
    expect(UserIdSchema.safeParse(user).success).toBe(false);
    expect(UserIdSchema.safeParse("u1").success).toBe(true);

    // And the spoke refuses a try for a real user outright.
    const stub = env.SPOKE.getByName(spokeObjectName(tenant.tenantId, "u2", bank.id));
    await runInDurableObject(stub, async (spoke: SpokeDO) => {
      await expect(spoke.tryCall(realCall(tenant, bank.id, "u2"), {} as ServingApp)).rejects.toThrow(
        /real user/,
      );
    });
  });

  it("refuses a per-user OAuth app's tool: the try user has no connection, and none is faked", async () => {
    const { tenant, dev } = await setup();
    const user = tryUserId(dev.id);
    // What the route refuses with 409 (the manifest names per-user OAuth), the spoke refuses too.
    const app = {
      appId: "app_oauth",
      name: "oauthnotes",
      version: 1,
      clearance: "",
      manifest: {
        name: "oauthnotes",
        mcp: { url: "https://mcp.example.com/mcp", auth: { type: "oauth" } },
        functionalities: [{ name: "read_note", tool: { name: "read_note" } }],
      },
      bindings: {},
      secrets: [],
      pins: null,
      drifted: false,
    } as unknown as ServingApp;
    const report = await spokeOf(tenant, user, app.appId).tryCall(
      { ...realCall(tenant, app.appId, user), functionality: "read_note", request: {} },
      app,
    );
    expect(report).toMatchObject({ request: null, result: { ok: false, code: "authorization_required" } });
    expect(report.result.ok || report.result.message).toMatch(/no connection/);
  });

  it("is rate limited per developer key", async () => {
    const { tenant, dev, world } = await setup();
    const bank = await registerDemoApp(tenant, dev.secret, "bank", world, { approve: false });
    // An input the schema refuses: nothing reaches the app, only the limit is counted. The limit
    // counts in fixed 60 s windows, so a slow run may cross one boundary: 61 tries within a minute
    // still meet a 429, and never before the 30th.
    let allowed = 0;
    let refused: { status: number; body: unknown } | null = null;
    for (let i = 0; i < 61 && !refused; i++) {
      const res = await tryIt(dev.secret, bank.id, 1, "send_money", {});
      if (res.status === 200) allowed++;
      else refused = res;
    }
    expect(refused, "no 429 in 61 tries").not.toBeNull();
    expectError(refused!, 429, "rate_limited");
    expect(allowed).toBeGreaterThanOrEqual(30);
  });
});
