import { describe, expect, it } from "vitest";
import { mintConsentLink } from "../../src/credentials.ts";
import { api } from "./helpers.ts";
import {
  answer,
  display,
  type HubWorld,
  hubWorld,
  INVITE_PLAN,
  INVITE_QUERY,
  lit,
  ref,
  script,
  tool,
  withInvite,
} from "./hub-kit.ts";

/**
 * A consent link (credentials.ts): the chat's user answers one consent with no Lattice credential.
 * It reaches GET and POST of its own consent and nothing else; each refusal here has its control
 * (the same request with a link or key that may make it succeeds).
 */

const SECRET = "test-key-secret";
const IBAN = "DE89370400440532013000";
const paymentPlan = {
  steps: [
    tool("paid", "bank.send_money", { recipient: lit(IBAN), amount: lit(40), subject: lit("lunch") }),
    display(ref("paid")),
  ],
};

interface Turn {
  text: string;
  sid: string;
  qid: string;
  cid: string;
  link: string;
}

async function payWorld(): Promise<HubWorld> {
  const w = await hubWorld(["bank"]);
  await script(w.models.planner, [{ when: "send 40", respond: paymentPlan }]);
  return w;
}

/** A chat turn from an Open WebUI user that ends on a consent: its link and the token in its fragment. */
async function askToPay(
  w: HubWorld,
  user: string,
  chat: string,
  content = `Send 40 EUR to ${IBAN} with subject lunch`,
  more: Record<string, string> = {},
): Promise<Turn> {
  const res = await api("POST", "/v1/openai/chat/completions", {
    key: w.frontend,
    headers: { "X-OpenWebUI-User-Id": user, "X-OpenWebUI-Chat-Id": chat, ...more },
    body: { model: "lattice", messages: [{ role: "user", content }] },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const body = res.body as {
    choices: Array<{ message: { content: string } }>;
    lattice: { sessionId: string; queryId: string };
  };
  const text = body.choices[0]!.message.content;
  const m =
    /\/console\/sessions\/(ses_[a-f0-9]{32})\/consents\/([A-Za-z0-9_-]+)#link=(lc\.[A-Za-z0-9._-]+)/.exec(
      text,
    );
  expect(m, text).not.toBeNull();
  return { text, sid: m![1]!, cid: m![2]!, link: m![3]!, qid: body.lattice.queryId };
}

const consentPath = (t: { sid: string; cid: string }) => `/v1/sessions/${t.sid}/consents/${t.cid}`;
const allow = { decision: "allow", scope: "once" };

function payloadOf(link: string): { u: string; s: string; c: string; exp: number; kid: string; n?: string } {
  const b64 = link.split(".")[2]!.replaceAll("-", "+").replaceAll("_", "/");
  return JSON.parse(atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4)));
}

describe("a consent link", () => {
  // #44: the page named the user by Open WebUI's UUID and never showed the request, so two pending
  // requests of one person looked alike.
  it("carries the forwarded display name, cleaned, and its consent's read has the request's words", async () => {
    const w = await payWorld();
    const name =
      "Dana \u202eWhitfield\u0007 of Ledgerwise and a name far longer than any page needs to show it";
    const t = await askToPay(w, "0f8fad5b-d9cb-469f-a165-70867728950e", "chat-n", undefined, {
      "X-OpenWebUI-User-Name": name,
    });
    const shown = payloadOf(t.link).n!;
    expect(shown.startsWith("Dana Whitfield of Ledgerwise")).toBe(true);
    expect([...shown].length).toBeLessThanOrEqual(64);
    for (const c of ["\u202e", "\u0007"]) expect(shown).not.toContain(c);
    const read = await api("GET", consentPath(t), { key: t.link });
    expect((read.body as { request?: { text: string } }).request).toEqual({
      text: `Send 40 EUR to ${IBAN} with subject lunch`,
    });
    // Control: without the header the link names no one but the user id.
    const plain = await askToPay(w, "bob", "chat-m");
    expect(payloadOf(plain.link).n).toBeUndefined();
  });

  it("reads and answers its consent with the link alone, once: a replay is a 409, never a fresh grant", async () => {
    const w = await payWorld();
    const t = await askToPay(w, "alice", "chat-1");
    const read = await api("GET", consentPath(t), { key: t.link });
    expect(read.status).toBe(200);
    const consent = read.body as { id: string; status: string; expiresAt: string; functionality: string };
    expect(consent).toMatchObject({ id: t.cid, status: "pending", functionality: "bank.send_money" });
    // Signed for this user, session and consent; short-lived: never past the consent's own expiry.
    const p = payloadOf(t.link);
    expect(p).toMatchObject({ u: "alice", s: t.sid, c: t.cid });
    expect(p.exp * 1000).toBeLessThanOrEqual(Date.parse(consent.expiresAt));
    expect(p.exp * 1000).toBeGreaterThan(Date.now());

    expect((await api("POST", consentPath(t), { key: t.link, body: allow })).status).toBe(200);
    const replay = await api("POST", consentPath(t), { key: t.link, body: allow });
    expect(replay.status).toBe(409);
    expect((replay.body as { error: { code: string; message: string } }).error).toMatchObject({
      code: "conflict",
      message: expect.stringMatching(/already answered \(allowed\)/),
    });
    const flipped = await api("POST", consentPath(t), { key: t.link, body: { decision: "deny" } });
    expect(flipped.status).toBe(409);
    // Reading it afterwards says how it was answered (the page shows that, not a form).
    expect(((await api("GET", consentPath(t), { key: t.link })).body as { status: string }).status).toBe(
      "allowed",
    );
    // The audit row says the answer came through a link, for whom, and which frontend key showed it.
    await expect
      .poll(async () => {
        const audit = await api("GET", "/v1/admin/audit?type=consent_answered", { key: w.tenant.adminKey });
        const events = (audit.body as { events: Array<{ detail: { answeredBy?: unknown } }> }).events;
        return events.map((e) => e.detail.answeredBy);
      })
      .toContainEqual(expect.objectContaining({ viaConsentLink: true, userId: "alice" }));
    // The edge's own row of the write names the link and its user too, not the frontend key alone.
    await expect
      .poll(async () => {
        const audit = await api("GET", "/v1/admin/audit?type=api_write", { key: w.tenant.adminKey });
        const events = (audit.body as { events: Array<{ detail: Record<string, unknown> }> }).events;
        return events.map((e) => e.detail).filter((d) => d.path === consentPath(t));
      })
      .toContainEqual(expect.objectContaining({ viaConsentLink: true, userId: "alice", status: 200 }));
  });

  it("answers with scope once only: a session or permanent grant through it is a 400 (#43)", async () => {
    // A data_share offers every scope, so only the link's own limit can refuse a lasting one.
    const w = await hubWorld(["contacts", "calendar"], withInvite());
    await script(w.models.planner, [{ when: "Invite my landlord", respond: INVITE_PLAN }]);
    const t = await askToPay(w, "alice", "chat-1", INVITE_QUERY);
    const read = await api("GET", consentPath(t), { key: t.link });
    expect(read.body).toMatchObject({ kind: "data_share", scopes: ["once"] });
    for (const scope of ["session", "permanent"]) {
      const res = await api("POST", consentPath(t), { key: t.link, body: { decision: "allow", scope } });
      expect(res.status, scope).toBe(400);
      expect((res.body as { error: { code: string; details: unknown } }).error).toMatchObject({
        code: "invalid_request",
        details: [{ field: "body.scope", message: "allowed through a consent link: once" }],
      });
    }
    // Still pending: the refusal left no answer and no grant.
    expect(((await api("GET", consentPath(t), { key: t.link })).body as { status: string }).status).toBe(
      "pending",
    );
    // Control: the frontend key (the console) sees every scope, and answers with a lasting one.
    const full = await api("GET", consentPath(t), { key: w.frontend });
    expect(full.body).toMatchObject({ scopes: ["once", "session", "permanent"] });
    const lasting = await answer(w, t.sid, t.cid, { decision: "allow", scope: "session" });
    expect(lasting.status).toBe(200);
    expect(lasting.body).toMatchObject({ status: "allowed", scope: "session" });
  });

  it("reaches no other route of its own session: the list, the query, its events, a new query, the chat", async () => {
    const w = await payWorld();
    const t = await askToPay(w, "alice", "chat-1");
    const refused = [
      ["GET", `/v1/sessions/${t.sid}/consents`],
      ["GET", `/v1/sessions/${t.sid}/consents?status=pending`],
      ["GET", `/v1/sessions/${t.sid}/queries/${t.qid}`],
      ["GET", `/v1/sessions/${t.sid}/events`],
      ["POST", `/v1/sessions/${t.sid}/queries`],
      ["POST", "/v1/sessions"],
      ["POST", "/v1/users/alice/tokens"],
      ["GET", "/v1/users/alice/artifacts"],
      ["POST", "/v1/openai/chat/completions"],
      ["DELETE", consentPath(t)],
    ] as const;
    for (const [method, path] of refused) {
      const res = await api(method, path, { key: t.link, body: method === "GET" ? undefined : {} });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    // The control: the frontend key reads the same query, so only the link's binding refused it.
    expect((await api("GET", `/v1/sessions/${t.sid}/queries/${t.qid}`, { key: w.frontend })).status).toBe(
      200,
    );
  });

  it("answers no other consent, session or user; the other consent stays answerable by its own link", async () => {
    const w = await payWorld();
    const mine = await askToPay(w, "alice", "chat-1");
    const other = await askToPay(w, "alice", "chat-2");
    const bobs = await askToPay(w, "bob", "chat-1");
    for (const target of [other, bobs, { sid: mine.sid, cid: other.cid }]) {
      const res = await api("POST", consentPath(target), { key: mine.link, body: allow });
      expect(res.status).toBe(403);
      expect((await api("GET", consentPath(target), { key: mine.link })).status).toBe(403);
    }
    // A link signed for Alice's consent but naming Bob as its user finds no session.
    const kid = payloadOf(mine.link).kid;
    const exp = Math.floor(Date.now() / 1000) + 60;
    const wrongUser = await mintConsentLink(
      SECRET,
      { u: "bob", s: mine.sid, c: mine.cid, exp, kid },
      w.tenant.tenantId,
    );
    expect((await api("POST", consentPath(mine), { key: wrongUser, body: allow })).status).toBe(404);
    // The controls: each consent is answerable, by its own link or by the frontend key.
    expect((await api("POST", consentPath(other), { key: other.link, body: allow })).status).toBe(200);
    expect((await answer(w, bobs.sid, bobs.cid, { decision: "allow" })).status).toBe(200);
    expect((await api("POST", consentPath(mine), { key: mine.link, body: allow })).status).toBe(200);
  });

  it("answers nothing of another tenant, and a link whose tenant, payload or expiry was changed is a 401", async () => {
    const a = await payWorld();
    const b = await payWorld();
    const mine = await askToPay(a, "alice", "chat-1");
    const theirs = await askToPay(b, "alice", "chat-1");
    expect((await api("POST", consentPath(theirs), { key: mine.link, body: allow })).status).toBe(403);
    const [, , payload, tag] = mine.link.split(".");
    const otherTenant = `lc.${b.tenant.tenantId}.${payload}.${tag}`;
    expect((await api("GET", consentPath(mine), { key: otherTenant })).status).toBe(401);
    const p = payloadOf(mine.link);
    const forged = btoa(JSON.stringify({ ...p, c: theirs.cid })).replaceAll("=", "");
    expect(
      (await api("GET", consentPath(mine), { key: `lc.${a.tenant.tenantId}.${forged}.${tag}` })).status,
    ).toBe(401);
    const expired = await mintConsentLink(
      SECRET,
      { ...p, exp: Math.floor(Date.now() / 1000) - 1 },
      a.tenant.tenantId,
    );
    const late = await api("GET", consentPath(mine), { key: expired });
    expect(late.status).toBe(401);
    expect((late.body as { error: { message: string } }).error.message).toMatch(/consent link/);
    // The controls: the tenant's own link, unexpired, reads it; B's consent is answered by B's.
    expect((await api("GET", consentPath(mine), { key: mine.link })).status).toBe(200);
    expect((await api("POST", consentPath(theirs), { key: theirs.link, body: allow })).status).toBe(200);
  });
});
