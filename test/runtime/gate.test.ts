import { describe, expect, it } from "vitest";
import { checkCall, policyLattices } from "../../src/policy/index.ts";
import { Gate } from "../../src/runtime/gate.ts";
import { type Consent, namesApp, type PlanningSnapshot, type Target } from "../../src/runtime/index.ts";
import type { Labeled } from "../../src/runtime/values.ts";
import { entry, policy } from "../policy/fixtures.ts";

const P = policy({ planning: { mode: "catalog" } });
const L = policyLattices(P);
const target = (app: string, tool: string, irreversible = false): Target => ({
  tool,
  app,
  appId: `app_${app}`,
  functionality: tool.split(".")[1] ?? tool,
  version: 1,
  entry: entry({ irreversible, clearance: "confidential" }),
  description: `${app}'s own words`,
});
const SNAPSHOT: PlanningSnapshot = {
  mode: "catalog",
  catalog: { "notes.add": entry(), "ride.book": entry({ irreversible: true }) },
  targets: {
    "notes.add": [target("notes", "notes.add")],
    "ride.book": [
      target("home", "ride.book", true),
      target("ride", "ride.book", true),
      target("swiftride", "ride.book", true),
    ],
  },
  destinations: {},
  choices: { "notes.add": "notes.add", "ride.book": "ride.book" },
  artifacts: {},
};

function gate(
  query: string,
  consents: Record<string, Consent> = {},
  authorized: (appId: string) => boolean = () => true,
) {
  return new Gate({
    queryId: "q1",
    query,
    policy: P,
    lattices: L,
    snapshot: SNAPSHOT,
    violations: [],
    defences: {
      ifc: true,
      consent: true,
      isolation: true,
      visor: { S: true, T: true, I: true },
      pins: true,
      namedArtifacts: true,
    },
    ports: {
      standing: async () => null,
      consent: (s) => consents[s] ?? null,
      authorization: async (appId) =>
        authorized(appId)
          ? { authorized: true as const }
          : { authorized: false as const, url: `https://as.example/authorize?for=${appId}` },
      audit: () => {},
    },
  });
}
const user = { confidentiality: "public", integrity: "user" };
const arg = (value: unknown, origins: string[] = []): Labeled => ({
  value,
  label: user,
  origins,
  provenance: ["user"],
});
const step = (tool: string) => ({
  kind: "tool" as const,
  out: "x",
  tool,
  args: {},
  intent: "i",
  semantics: "s",
});

describe("the gate", () => {
  it("counts the apps behind the guards as a data share (implicit flow)", async () => {
    const notes = SNAPSHOT.targets["notes.add"]![0]!;
    const plain = gate("add a note");
    expect(await plain.check(notes, "steps[1]", { text: arg("hi") }, { label: user, origins: [] })).toBe(
      "go",
    );
    const guarded = gate("add a note");
    const under = { label: user, origins: ["bank"] }; // inside `if bank.balance > 100`
    expect(await guarded.check(notes, "steps[1].then[0]", { text: arg("hi") }, under)).toBe("pause");
    expect(guarded.asked).toMatchObject({ kind: "data_share", request: { from: ["bank"], to: "notes" } });
  });

  it("asks which app serves a step when several do, listing each in its own words", async () => {
    const g = gate("book me a ride home");
    expect(await g.route(step("ride.book"), "steps[0]")).toBeNull();
    expect(g.asked?.request.options).toEqual([
      { tool: "home.book", app: "home", description: "home's own words" },
      { tool: "ride.book", app: "ride", description: "ride's own words" },
      { tool: "swiftride.book", app: "swiftride", description: "swiftride's own words" },
    ]);
  });

  it("takes the user's pick on replay, and an @mention without asking", async () => {
    const picked = { status: "allowed", choice: "swiftride.book" } as Consent;
    const g = gate("book me a ride home", { "app_selection:ride.book": picked });
    expect((await g.route(step("ride.book"), "steps[0]"))?.app).toBe("swiftride");
    expect((await gate("book a ride with @Ride").route(step("ride.book"), "steps[0]"))?.app).toBe("ride");
  });
});

describe("a re-routed step", () => {
  it("is checked against the app the user picked, endorsing nothing the planned one allowed", async () => {
    const ask = policy({ planning: { mode: "catalog" }, onViolation: "ask" });
    const confidential = { confidentiality: "confidential", integrity: "user" };
    const low = { ...target("lowcab", "ride.book"), entry: entry({ clearance: "public" }) };
    const high = target("highcab", "ride.book"); // cleared for confidential
    // The verifier saw a flow it could endorse (against the planned target's clearance).
    const staticViolation = {
      path: "steps[0]",
      stepOut: "x",
      tool: "ride.book",
      argument: "note",
      rule: "confidentiality" as const,
      label: confidential,
      required: { maxConfidentiality: "internal", minIntegrity: "untrusted" },
      sources: [],
      sourcesTruncated: false,
      endorsable: true,
    };
    const gate = (ifc: boolean) =>
      new Gate({
        queryId: "q1",
        query: "book it",
        policy: ask,
        lattices: policyLattices(ask),
        snapshot: { ...SNAPSHOT, targets: { "ride.book": [high, low] } },
        violations: [staticViolation],
        defences: {
          ifc,
          consent: true,
          isolation: true,
          visor: { S: true, T: true, I: true },
          pins: true,
          namedArtifacts: true,
        },
        ports: {
          standing: async () => null,
          consent: () => null,
          authorization: async () => ({ authorized: true as const }),
          audit: () => {},
        },
      });
    const args = {
      note: { value: "diagnosis", label: confidential, origins: [], provenance: ["user" as const] },
    };
    const pc = { label: user, origins: [] };
    // Above the picked app's clearance: refused, not endorsable, whatever the static verdict said.
    await expect(gate(true).check(low, "steps[0]", args, pc)).rejects.toMatchObject({
      code: "flow_violation",
    });
    // Control: without the flow check the diagnosis goes to the low-cleared app.
    expect(await gate(false).check(low, "steps[0]", args, pc)).toBe("go");
  });
});

describe("naming an app", () => {
  it("needs an explicit @mention in catalog mode; a common word is not one", () => {
    expect(namesApp("book me a ride home", "home", "catalog")).toBe(false);
    expect(namesApp("book me a ride home", "ride", "catalog")).toBe(false);
    expect(namesApp("book it with @home", "home", "catalog")).toBe(true);
    expect(namesApp("mail me@home.example", "home", "catalog")).toBe(false); // an address is no mention
    expect(namesApp("book with @swift-ride", "swift", "catalog")).toBe(false); // the name must end there
    // Apps mode keeps the whole-word rule, which such names squat (the reason catalog mode is the default).
    expect(namesApp("book me a ride home", "home", "apps")).toBe(true);
  });
});

describe("policy rules the gate and the agent loop share", () => {
  it("checkCall: each argument joined with pc, and the call itself, against its endpoint", () => {
    const findings = checkCall({
      policy: P,
      lattices: L,
      tool: "bank.send",
      entry: entry({ irreversible: true, clearance: "internal" }),
      pc: { confidentiality: "public", integrity: "untrusted" },
      args: { to: user, memo: { confidentiality: "secret", integrity: "user" } },
    });
    expect(findings.map((f) => [f.argument, f.rule, f.endorsable])).toEqual([
      [null, "integrity", false],
      ["to", "integrity", false],
      ["memo", "confidentiality", false],
      ["memo", "integrity", false],
    ]);
  });

  it("waits on an authorize consent (with the sign-in URL) for an app the user has not authorized", async () => {
    const notes = { ...SNAPSHOT.targets["notes.add"]![0]!, authorize: true as const };
    const pc = { label: user, origins: [] };
    const waiting = gate("add a note", {}, () => false);
    expect(await waiting.check(notes, "steps[0]", { text: arg("hi") }, pc)).toBe("pause");
    expect(waiting.asked).toMatchObject({
      kind: "authorize",
      subject: "authorize:app_notes",
      request: { to: "notes", authorization: { url: "https://as.example/authorize?for=app_notes" } },
    });
    // Once the spoke holds the user's tokens the call goes on; an app without the flag never asks.
    expect(await gate("add a note", {}, () => true).check(notes, "steps[0]", { text: arg("hi") }, pc)).toBe(
      "go",
    );
    const plain = SNAPSHOT.targets["notes.add"]![0]!;
    expect(await gate("add a note", {}, () => false).check(plain, "steps[0]", { text: arg("hi") }, pc)).toBe(
      "go",
    );
    // "Allowed" without signing in: the step fails, it does not call the app without a token.
    const allowed = { status: "allowed", kind: "authorize" } as Consent;
    const unsigned = gate("add a note", { "authorize:app_notes": allowed }, () => false);
    await expect(unsigned.check(notes, "steps[0]", { text: arg("hi") }, pc)).rejects.toMatchObject({
      code: "authorization_required",
    });
  });
});
