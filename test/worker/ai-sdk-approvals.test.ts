import type { UIMessage } from "ai";
import { describe, expect, it } from "vitest";
import type { ConsentView } from "../../src/runtime/consent-view.ts";
import {
  bankWorld,
  CHAT_API,
  Chat,
  flipFirst,
  LANDLORD_IBAN,
  lattice,
  PAY,
  type ToolPart,
  textOf,
  toolParts,
} from "./ai-sdk-kit.ts";
import { worldState } from "./demo.ts";
import { api } from "./helpers.ts";
import {
  answer,
  display,
  hubWorld,
  INVITE_PLAN,
  INVITE_QUERY,
  lit,
  OWN_BOOK,
  openSession,
  pendingConsents,
  ref,
  script,
  tool,
  withInvite,
} from "./hub-kit.ts";

describe("the AI SDK UI message stream: consents as tool approvals", () => {
  it("asks a consent as a tool approval with the hub's assessment; approving runs the step", async () => {
    const { w, sid } = await bankWorld();
    const chat = new Chat(w.frontend, { "X-Lattice-Session": sid });
    await chat.sendMessage({ text: PAY });
    const [part] = toolParts(chat.last);
    expect(part).toMatchObject({ toolName: "bank.send_money", state: "approval-requested" });
    const approval = (part as { approval: { id: string; requestReason?: string; descriptor?: unknown } })
      .approval;
    const [consent] = await pendingConsents(w, sid);
    expect(consent).toMatchObject({ kind: "irreversible", status: "pending" });
    expect(approval.id).toMatch(new RegExp(`^lca1\\.${consent!.id}\\.`));
    expect(approval.descriptor).toMatchObject({
      lattice: { consentId: consent!.id, kind: "irreversible", assessment: consent!.assessment },
    });
    expect(approval.requestReason).toContain(consent!.assessment.reasons[0]);
    expect((part as { input: unknown }).input).toMatchObject({ recipient: LANDLORD_IBAN, amount: 40 });
    expect((await worldState(w.world)).calls).toEqual([]);

    await chat.addToolApprovalResponse({ id: approval.id, approved: true });
    await chat.idle();
    expect(chat.status).toBe("ready");
    expect(toolParts(chat.last)[0]).toMatchObject({ toolName: "bank.send_money", state: "output-available" });
    expect(textOf(chat.last)).toMatch(/` Payment `:/);
    expect(chat.last.metadata).toMatchObject({ lattice: { status: "completed" } });
    expect((await worldState(w.world)).calls.map((c) => c.functionality)).toEqual(["send_money"]);
    const answered = await api("GET", `/v1/sessions/${sid}/consents`, { key: w.frontend });
    expect((answered.body as { consents: Array<{ status: string }> }).consents[0]?.status).toBe("allowed");
  });

  it("carries the consent's view in the approval: a payment, its values' sources", async () => {
    const { w, sid } = await bankWorld();
    const chat = new Chat(w.frontend, { "X-Lattice-Session": sid });
    await chat.sendMessage({ text: PAY });
    const approval = (
      toolParts(chat.last)[0] as { approval: { descriptor?: { lattice: { view?: ConsentView } } } }
    ).approval;
    const view = approval.descriptor!.lattice.view!;
    expect(view.kind).toBe("payment");
    expect(view.fields.find((f) => f.name === "iban")).toMatchObject({
      value: LANDLORD_IBAN,
      sources: [{ kind: "user", words: "your words" }],
      warnings: [],
    });
  });

  it.each([
    ["session", "session", false],
    // Control: without a reason the approval is for once, and the next request asks again.
    [undefined, "once", true],
  ])(
    "an approval with reason %s answers for %s; the next request asks again: %s",
    async (reason, scope, again) => {
      const w = await hubWorld(["contacts", "calendar"], withInvite(OWN_BOOK));
      await script(w.models.planner, [{ respond: INVITE_PLAN }]);
      const sid = await openSession(w);
      const chat = new Chat(w.frontend, { "X-Lattice-Session": sid });
      const asking = () => toolParts(chat.last).find((p) => p.state === "approval-requested");
      await chat.sendMessage({ text: INVITE_QUERY });
      const approval = (asking() as { approval: { id: string } }).approval;
      await chat.addToolApprovalResponse({ id: approval.id, approved: true, ...(reason && { reason }) });
      await chat.idle();
      expect(chat.last.metadata).toMatchObject({ lattice: { status: "completed" } });
      const consents = (await api("GET", `/v1/sessions/${sid}/consents`, { key: w.frontend })).body as {
        consents: Array<{ kind: string; scope: string | null }>;
      };
      expect(consents.consents).toEqual([expect.objectContaining({ kind: "data_share", scope })]);
      await chat.sendMessage({ text: INVITE_QUERY });
      expect(asking() !== undefined).toBe(again);
    },
  );

  it("an approval for longer than an irreversible consent allows is refused, not narrowed to once", async () => {
    const { w, sid } = await bankWorld();
    const chat = new Chat(w.frontend, { "X-Lattice-Session": sid });
    await chat.sendMessage({ text: PAY });
    const approval = (toolParts(chat.last)[0] as { approval: { id: string } }).approval;
    await chat.addToolApprovalResponse({ id: approval.id, approved: true, reason: "permanent" });
    await chat.idle();
    expect(toolParts(chat.last)[0]).toMatchObject({ state: "output-error" });
    expect((toolParts(chat.last)[0] as { errorText?: string }).errorText).toMatch(/only once, not permanent/);
    expect((await worldState(w.world)).calls).toEqual([]);
    const [still] = await pendingConsents(w, sid);
    expect(still).toMatchObject({ kind: "irreversible", status: "pending" });
    // Control: the same consent answered once (the approval without a reason) runs, as above.
    expect((await answer(w, sid, still!.id, { decision: "allow", scope: "once" })).status).toBe(200);
  });

  it("denying the approval stops the step: no call, the part denied, the consent denied", async () => {
    const { w, sid } = await bankWorld();
    const chat = new Chat(w.frontend, { "X-Lattice-Session": sid });
    await chat.sendMessage({ text: PAY });
    const approval = (toolParts(chat.last)[0] as { approval: { id: string } }).approval;
    await chat.addToolApprovalResponse({ id: approval.id, approved: false });
    await chat.idle();
    expect(toolParts(chat.last)[0]).toMatchObject({ state: "output-denied" });
    expect(textOf(chat.last)).toMatch(/✗ Not done: you refused, so the payment .* was not made\./);
    expect((await worldState(w.world)).calls).toEqual([]);
    const after = await api("GET", `/v1/sessions/${sid}/consents`, { key: w.frontend });
    expect((after.body as { consents: Array<{ status: string }> }).consents[0]?.status).toBe("denied");
  });

  it("an approval id answers only in its own session: another session's, or a forged one, is refused", async () => {
    const { w, sid } = await bankWorld();
    const chat = new Chat(w.frontend, { "X-Lattice-Session": sid });
    await chat.sendMessage({ text: PAY });
    const assistant = chat.last;
    const approval = (toolParts(assistant)[0] as { approval: { id: string } }).approval;
    const [consent] = await pendingConsents(w, sid);
    const answering = (id: string) =>
      ({
        ...assistant,
        parts: assistant.parts.map((p) =>
          p.type === "dynamic-tool"
            ? { ...p, state: "approval-responded", approval: { id, approved: true } }
            : p,
        ),
      }) as UIMessage;
    const post = (session: string, id: string) =>
      lattice(CHAT_API, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${w.frontend}`,
          "content-type": "application/json",
          "X-Lattice-Session": session,
        },
        body: JSON.stringify({
          id: "chat-1",
          user: "alice",
          trigger: "submit-message",
          messages: [answering(id)],
        }),
      });

    // The same user's other session, the signed id replayed there; then the bare consent id, and a tampered tag.
    const other = await openSession(w);
    for (const [session, id] of [
      [other, approval.id],
      [sid, consent!.id],
      [sid, `${approval.id.slice(0, -2)}xx`],
      [sid, `lca1.${consent!.id}.${flipFirst(approval.id.split(".")[2]!)}`],
    ] as const) {
      const res = await post(session, id);
      expect(res.status, id).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code: "invalid_approval" } });
    }
    expect((await pendingConsents(w, sid)).map((c) => c.id)).toEqual([consent!.id]);
    expect((await worldState(w.world)).calls).toEqual([]);
    // Control: the same request with the id as issued, in its own session, answers the consent.
    const ok = await post(sid, approval.id);
    expect(ok.status).toBe(200);
    await ok.text();
    expect(await pendingConsents(w, sid)).toEqual([]);
  });

  it("an approval of a consent answered meanwhile elsewhere follows the query to its outcome", async () => {
    const { w, sid } = await bankWorld();
    const chat = new Chat(w.frontend, { "X-Lattice-Session": sid });
    await chat.sendMessage({ text: PAY });
    const approval = (toolParts(chat.last)[0] as { approval: { id: string } }).approval;
    const [consent] = await pendingConsents(w, sid);
    // Answered in the console (its REST call) before the chat's button is pressed.
    expect((await answer(w, sid, consent!.id, { decision: "allow" })).status).toBe(200);
    await chat.addToolApprovalResponse({ id: approval.id, approved: false });
    await chat.idle();
    expect(chat.status).toBe("ready");
    expect(textOf(chat.last)).toContain("This was answered already (allowed).");
    expect(chat.last.metadata).toMatchObject({ lattice: { status: "completed" } });
    // The late "deny" changed nothing: the payment the console allowed was made.
    expect((await worldState(w.world)).calls.map((c) => c.functionality)).toEqual(["send_money"]);
  });

  it("an app choice cannot be answered by an approval: it stays pending, pointing to its page", async () => {
    const w = await hubWorld(["swiftride", "cheapcab"]);
    const quote = {
      steps: [
        tool("q", "cheapcab.quote", { from: lit("Home"), to: lit("Airport") }),
        display(ref("q", "fare")),
      ],
    };
    await script(w.models.planner, [{ respond: quote }]);
    const sid = await openSession(w);
    const chat = new Chat(w.frontend, { "X-Lattice-Session": sid });
    await chat.sendMessage({ text: "Get me a ride quote from Home to Airport" });
    const part = toolParts(chat.last)[0] as ToolPart & { approval: { id: string; descriptor?: unknown } };
    expect(part.approval.descriptor).toMatchObject({
      lattice: {
        kind: "app_selection",
        options: expect.arrayContaining([expect.objectContaining({ appSays: expect.any(String) })]),
      },
    });
    const partsBefore = chat.last.parts.length;
    await chat.addToolApprovalResponse({ id: part.approval.id, approved: true });
    await chat.idle();
    // The part ends (so the client stops re-sending its answer), saying where the choice is made.
    expect(toolParts(chat.last)[0]).toMatchObject({
      state: "output-error",
      errorText: expect.stringContaining("Choose the app on the consent's page"),
    });
    expect(textOf(chat.last)).toContain(`/console/sessions/${sid}/consents/`);
    // Nothing replayed: no second approval request, only the consent's text added.
    expect(toolParts(chat.last)).toHaveLength(1);
    expect(chat.last.parts.length).toBeLessThanOrEqual(partsBefore + 2);
    expect((await pendingConsents(w, sid)).map((c) => c.kind)).toEqual(["app_selection"]);
    expect((await worldState(w.world)).calls).toEqual([]);
  });
});
