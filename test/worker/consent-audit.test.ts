/**
 * A consent answer's audit row names who answered: the API key's id (never the key) and, for a user
 * token, its user, read back through the admin audit route.
 */
import { describe, expect, it } from "vitest";
import { api } from "./helpers.ts";
import {
  ask,
  display,
  hubWorld,
  lit,
  nextConsent,
  openSession,
  ref,
  script,
  settle,
  tool,
} from "./hub-kit.ts";

const paymentPlan = {
  steps: [
    tool("paid", "bank.send_money", {
      recipient: lit("DE89370400440532013000"),
      amount: lit(40),
      subject: lit("lunch"),
    }),
    display(ref("paid")),
  ],
};

type AuditRow = { type: string; detail: Record<string, unknown> };

describe("a consent answer's audit row", () => {
  it("names the answering key's id, and a user token's user", async () => {
    const w = await hubWorld(["bank"]);
    await script(w.models.planner, [{ respond: paymentPlan }, { respond: paymentPlan }]);
    const keys = await api("GET", "/v1/admin/keys", { key: w.tenant.adminKey });
    const frontendId = (keys.body as { keys: Array<{ id: string; role: string }> }).keys.find(
      (k) => k.role === "frontend",
    )!.id;
    const token = await api("POST", "/v1/users/alice/tokens", { key: w.frontend, body: {} });
    const alice = (token.body as { token: string }).token;
    const sid = await openSession(w);
    const answers: Array<[string, string]> = [
      [alice, "allow"],
      [w.frontend, "deny"],
    ];
    for (const [key, decision] of answers) {
      const qid = await ask(w, sid, "Send 40 EUR to DE89370400440532013000 with subject lunch");
      const consent = await nextConsent(w, sid);
      const res = await api("POST", `/v1/sessions/${sid}/consents/${consent.id}`, {
        key,
        body: { decision, scope: "once" },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      await settle(w, sid, qid);
    }
    const audit = await api("GET", "/v1/admin/audit?type=consent_answered", { key: w.tenant.adminKey });
    const rows = (audit.body as { events: AuditRow[] }).events.filter((e) => e.type === "consent_answered");
    expect(rows.map((r) => [r.detail.decision, r.detail.answeredBy])).toEqual([
      ["allow", { keyId: frontendId, viaUserToken: true, userId: "alice" }],
      ["deny", { keyId: frontendId, viaUserToken: false }],
    ]);
    // The key's id, never the key or the token.
    const text = JSON.stringify(rows);
    expect(text).not.toContain(w.frontend);
    expect(text).not.toContain(alice);
  });
});
