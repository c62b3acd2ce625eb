/**
 * Erasure as a property (#34): random histories for two or three users of one tenant, every planted
 * value a distinctive string (query texts and answers, spoke memory, standing rules, audit rows) or a
 * record only that user has (a permanent grant's id, the sealed OAuth token as stored). One user is
 * erased; a walk of every object class of theirs, and of the tenant's log, finds none of their planted
 * values. Control, per run: before the erasure the same walk finds every planted value of every user,
 * and after it every other user's are still there.
 */
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { spokeObjectName } from "../../src/objects/names.ts";
import { api, readAudit } from "./helpers.ts";
import {
  answer,
  display,
  type HubWorld,
  hubWorld,
  INVITE_PLAN,
  INVITE_QUERY,
  lit,
  mirrorCatalog,
  openSession,
  pendingConsents,
  ref,
  tool,
  withInvite,
} from "./hub-kit.ts";
import { authorizeConsent, RETURN_PAGE, registerOAuthApp, signIn } from "./oauth-kit.ts";
import { auditRow, runQuery, standingRule, walk } from "./user-data-kit.ts";

const History = fc.record({
  tag: fc.stringMatching(/^[a-z0-9]{8}$/),
  /** Sessions, each with this many queries. */
  sessions: fc.array(fc.integer({ min: 1, max: 2 }), { maxLength: 2 }),
  /** A call the contacts app's spoke remembers, its argument planted. */
  memory: fc.boolean(),
  /** A data share allowed with scope `permanent`: a grant in the user's artifacts object. */
  grant: fc.boolean(),
  rules: fc.integer({ min: 0, max: 2 }),
  oauth: fc.boolean(),
  audit: fc.integer({ min: 0, max: 2 }),
});
type History = typeof History extends fc.Arbitrary<infer T> ? T : never;

interface Planted {
  userId: string;
  sessions: string[];
  values: string[];
  counts: { grants: number; standingRules: number; oauthTokens: number };
}

/** Plays one user's history; what it planted, and where. */
async function play(w: HubWorld & { files: string }, i: number, h: History): Promise<Planted> {
  const userId = `u${i}-${h.tag}`;
  let n = 0;
  const values: string[] = [];
  const plant = () => {
    const value = `PL${h.tag}x${i}n${String(n++).padStart(2, "0")}`;
    values.push(value);
    return value;
  };
  const sessions: string[] = [];
  const session = async () => {
    const sid = await openSession(w, { userId });
    sessions.push(sid);
    return sid;
  };

  for (const count of h.sessions) {
    const sid = await session();
    for (let q = 0; q < count; q++) {
      const [asked, answered] = [plant(), plant()];
      const plan = { steps: [display(lit(`answer ${answered}`))] };
      expect((await runQuery(w, sid, `note ${asked}`, plan)).status).toBe("completed");
    }
  }
  if (h.memory) {
    // A lookup of a name the book does not have: the query fails, the spoke remembers the call.
    const plan = { steps: [tool("c", "contacts.lookup", { name: lit(plant()) }), display(ref("c"))] };
    await runQuery(w, await session(), "find my contact", plan);
  }
  if (h.grant) {
    const sid = await session();
    const q = await runQuery(w, sid, INVITE_QUERY, INVITE_PLAN);
    expect(q.status).toBe("awaiting_consent");
    const [consent] = await pendingConsents(w, sid);
    expect(consent?.kind).toBe("data_share");
    const allowed = await answer(w, sid, consent!.id, { decision: "allow", scope: "permanent" });
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    // The grant names no value of the user's: its id, a record only this user has, is what is planted.
    const doc = await api("GET", `/v1/users/${userId}/export`, { key: w.tenant.adminKey });
    const grants = (doc.body as { grants: Array<{ id: string }> }).grants;
    expect(grants).toHaveLength(1);
    values.push(grants[0]!.id);
  }
  for (let r = 0; r < h.rules; r++) await standingRule(w, userId, plant());
  if (h.oauth) {
    const sid = await session();
    const plan = { steps: [tool("me", "files.whoami", {}), display(ref("me", "text"))] };
    const q = await runQuery(w, sid, "who am I to files?", plan);
    const consent = await authorizeConsent(w, sid, q.id);
    expect((await signIn(w, w.files, consent.authorization.url, userId)).status).toBe(200);
    // The token as stored (sealed): a string only this user's connection holds.
    values.push(await sealedToken(w, userId));
  }
  for (let a = 0; a < h.audit; a++) await auditRow(w, userId, sessions[0] ?? "s_none", plant());
  const counts = { grants: Number(h.grant), standingRules: h.rules, oauthTokens: Number(h.oauth) };
  return { userId, sessions, values, counts };
}

async function sealedToken(w: HubWorld & { files: string }, userId: string): Promise<string> {
  const { runInDurableObject } = await import("cloudflare:test");
  const stub = env.SPOKE.getByName(spokeObjectName(w.tenant.tenantId, userId, w.files));
  return runInDurableObject(stub, async (_, state) =>
    state.storage.sql.exec<{ sealed: string }>("SELECT sealed FROM oauth_tokens").one().sealed.slice(0, 48),
  );
}

/** All a reader of storage could see of one user: their objects, and the tenant's audit log. */
async function readable(w: HubWorld, p: Planted): Promise<string> {
  return `${await walk(w, p.userId, p.sessions)}\n${JSON.stringify(await readAudit(w.tenant.tenantId))}`;
}

describe("erasure, over random histories", () => {
  it("leaves nothing of the erased user readable, and every other user's data whole", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(History, { minLength: 2, maxLength: 3 }),
        fc.nat(),
        async (histories, pick) => {
          const base = await hubWorld(
            ["contacts", "calendar"],
            withInvite({ oauth: { returnUrl: RETURN_PAGE } }),
          );
          const files = await registerOAuthApp(base, "files");
          // Standing rules name catalog entries: the calendar's are catalogued (planning stays in
          // apps mode, where the per-user OAuth app is planned by its own name).
          const catalog = { entries: mirrorCatalog(["calendar"]) };
          const put = await api("PUT", "/v1/admin/catalog", { key: base.tenant.adminKey, body: catalog });
          expect(put.status, JSON.stringify(put.body)).toBe(200);
          const w = { ...base, apps: { ...base.apps, files }, files };
          const users: Planted[] = [];
          for (const [i, h] of histories.entries()) users.push(await play(w, i, h));

          // Control: every planted value of every user is readable before the erasure.
          for (const u of users) {
            const seen = await readable(w, u);
            for (const value of u.values) expect(seen, `${u.userId} before`).toContain(value);
          }

          const gone = users[pick % users.length]!;
          const erased = await api("DELETE", `/v1/users/${gone.userId}`, { key: w.tenant.adminKey });
          expect(erased.status, JSON.stringify(erased.body)).toBe(200);
          const report = erased.body as {
            cleared: Record<string, number>;
            oauth: Array<{ revocation: string }>;
          };
          expect(report.cleared).toMatchObject(gone.counts);
          expect(report.oauth.map((o) => o.revocation)).toEqual(gone.counts.oauthTokens ? ["revoked"] : []);

          const after = await readable(w, gone);
          for (const value of gone.values) expect(after, `${gone.userId} after`).not.toContain(value);
          for (const u of users.filter((x) => x !== gone)) {
            const seen = await readable(w, u);
            for (const value of u.values) expect(seen, `${u.userId} kept`).toContain(value);
            for (const value of gone.values) expect(seen).not.toContain(value);
          }
        },
      ),
      { numRuns: 8 },
    );
  }, 240_000);
});
