/**
 * `lattice-plain` is the tenant's model for a frontend's own text: only where the policy turns it on,
 * and within its own daily quota, so a user token cannot use it as an open proxy.
 */
import { describe, expect, it } from "vitest";
import { api } from "./helpers.ts";
import { hubWorld, modelLog, script } from "./hub-kit.ts";

const title = {
  model: "lattice-plain",
  user: "alice",
  messages: [{ role: "user", content: "Write a 3-word title: find my landlord" }],
};

async function world(policy: Record<string, unknown>) {
  const w = await hubWorld([], policy);
  await script(w.models.spoke, [{ seen: "title", respond: "Landlord search" }]);
  const res = await api("POST", "/v1/users/alice/tokens", { key: w.frontend, body: {} });
  return { ...w, token: (res.body as { token: string }).token };
}

const ask = (key: string) => api("POST", "/v1/openai/chat/completions", { key, body: title });

describe("lattice-plain", () => {
  it("is refused (403, OpenAI's error shape) where the policy does not turn it on: the default", async () => {
    const w = await world({});
    const res = await ask(w.token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      error: {
        type: "permission_error",
        code: "plain_model_off",
        param: "model",
        message: "the tenant's policy does not offer lattice-plain",
      },
    });
    expect(await modelLog(w.models.spoke)).toEqual([]); // the model was never called
  });

  it("control: turned on, the same request is the plain model's answer", async () => {
    const w = await world({ plainModel: { enabled: true } });
    const res = await ask(w.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ choices: [{ message: { content: "Landlord search" } }] });
  });

  it("counts in its own daily quota: past it, 429 with Retry-After; queries are not touched", async () => {
    const w = await world({ plainModel: { enabled: true }, quotas: { plainCallsPerDay: 2 } });
    expect((await ask(w.token)).status).toBe(200);
    expect((await ask(w.frontend)).status).toBe(200); // one quota for every credential of the tenant
    const over = await ask(w.token);
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({
      error: {
        type: "rate_limit_error",
        code: "quota_exceeded",
        message: expect.stringContaining("plain_calls"),
      },
    });
    const retry = Number(over.response.headers.get("Retry-After"));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(86_400);
    expect((await modelLog(w.models.spoke)).length).toBe(2);
    // Control: the plain quota spent leaves the tenant's queries (a separate quota) open.
    const session = await api("POST", "/v1/sessions", { key: w.token, body: { userId: "alice" } });
    const sid = (session.body as { id: string }).id;
    expect(
      (await api("POST", `/v1/sessions/${sid}/queries`, { key: w.token, body: { text: "hi" } })).status,
    ).toBe(202);
  });
});
