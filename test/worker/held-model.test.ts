/**
 * The vanilla spoke holds its q-llm model between calls (src/objects/spoke/held-model.ts): a policy
 * change or a used-up token quota must still reach its calls, through the reply to a recorded call
 * or within MODEL_HOLD_MS. Each check has its control: the hold kept regardless of the news.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { VANILLA_SPOKE } from "../../src/contracts.ts";
import { spokeObjectName } from "../../src/objects/names.ts";
import { rpc } from "../../src/objects/rpc.ts";
import { HeldModel, MODEL_HOLD_MS } from "../../src/objects/spoke/held-model.ts";
import type { SpokeDO } from "../../src/objects/spoke/index.ts";
import { api } from "./helpers.ts";
import { FAKE_BASE_URL, hubWorld, modelLog, script } from "./hub-kit.ts";

const tick = () => new Promise((resolve) => setTimeout(resolve, 30));
const model = { provider: "scripted", model: "m" } as const;

async function vanilla(tenantId: string) {
  const spoke = rpc<SpokeDO>(env.SPOKE.getByName(spokeObjectName(tenantId, "u1", VANILLA_SPOKE)));
  const ask = () =>
    spoke.qllm({
      tenantId,
      userId: "u1",
      modelTimeoutMs: 5_000,
      prompt: "Count.",
      inputs: { text: "one two" },
      schema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
    });
  return ask;
}

describe("the vanilla spoke's held model", () => {
  it("ends its hold after MODEL_HOLD_MS, or at news of a new version or no tokens left", () => {
    const held = new HeldModel();
    held.hold(model, 3, 1_000);
    expect(held.get(1_000 + MODEL_HOLD_MS - 1)).toEqual(model);
    expect(held.get(1_000 + MODEL_HOLD_MS)).toBeNull();
    held.hold(model, 3, 5_000);
    held.heard({ version: 3, left: true });
    expect(held.get(5_001)).toEqual(model);
    held.heard({ version: 4, left: true });
    expect(held.get(5_002)).toBeNull();
    held.hold(model, 4, 6_000);
    held.heard({ version: 4, left: false });
    expect(held.get(6_001)).toBeNull();
  });

  it("uses a changed q-llm model from the call after the one that reported the change", async () => {
    const w = await hubWorld([]);
    const next = `${w.world}-qllm-next`;
    for (const name of [w.models.qllm, next]) await script(name, Array(5).fill({ respond: { n: 2 } }));
    const ask = await vanilla(w.tenant.tenantId);
    // The clock stands still (the spoke runs in this isolate), so no hold lapses by time here: only
    // the news can end it, and the control (news ignored) uses the old model throughout.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    try {
      expect(await ask()).toMatchObject({ ok: true, value: { n: 2 } }); // resolved, and held
      const role = (name: string) => ({
        provider: "openai",
        baseURL: FAKE_BASE_URL,
        model: name,
        apiKey: "k",
      });
      const put = await api("PUT", "/v1/admin/policy", {
        key: w.tenant.adminKey,
        body: { models: { planner: role(w.models.planner), qllm: role(next), spoke: role(w.models.spoke) } },
      });
      expect(put.status).toBe(200);
      await ask(); // still the held model: its recorded tokens' reply reports the new version
      await tick();
      await ask();
    } finally {
      vi.useRealTimers();
    }
    expect(await modelLog(next)).toHaveLength(1);
    expect(await modelLog(w.models.qllm)).toHaveLength(2);
  });

  it("refuses the call after the one that used up the day's tokens", async () => {
    const w = await hubWorld([], { quotas: { modelTokensPerDay: 1 } });
    await script(w.models.qllm, Array(3).fill({ respond: { n: 2 } }));
    const ask = await vanilla(w.tenant.tenantId);
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() }); // as above: only the news ends the hold
    try {
      expect(await ask()).toMatchObject({ ok: true }); // none used yet: it goes, and uses more than 1
      await tick();
      expect(await ask()).toMatchObject({ ok: false, code: "quota_exceeded" });
    } finally {
      vi.useRealTimers();
    }
    expect(await modelLog(w.models.qllm)).toHaveLength(1);
  });
});
