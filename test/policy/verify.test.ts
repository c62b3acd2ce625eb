import { describe, expect, it } from "vitest";
import { cond, eq, type Json, lit, loop, plan, qllm, ref, retrieve, select, tool } from "./builders.ts";
import { ctx, EXAMPLE_PLAN, EXAMPLE_POLICY_INPUT, entry, exampleWith, policy } from "./fixtures.ts";
import { brief, CATALOG, fetchWeb, QUERY, transfer, verify, world } from "./verify-world.ts";

describe("DSL.md's example", () => {
  it("verifies under the tenant policy it describes", () => {
    const v = verify(EXAMPLE_PLAN, ctx());
    expect(v.ok).toBe(true);
    expect(v.violations).toEqual([]);
    expect(Object.fromEntries(v.labels)).toEqual({
      inv: { confidentiality: "confidential", integrity: "untrusted" },
      sum: { confidentiality: "confidential", integrity: "untrusted" },
      acct: { confidentiality: "internal", integrity: "user" },
      sent: { confidentiality: "confidential", integrity: "untrusted" },
    });
    expect(v.displays).toEqual([
      expect.objectContaining({ path: "steps[4]", redacted: false, untrusted: true }),
    ]);
  });

  it("is rejected when `to` is taken from an email", () => {
    const v = verify(exampleWith(3, "to", ref("inv", 0, "from")), ctx());
    expect(v.ok).toBe(false);
    expect(v.violations).toEqual([
      {
        path: "steps[3]",
        stepOut: "sent",
        tool: "mail.send",
        argument: "to",
        rule: "integrity",
        label: { confidentiality: "confidential", integrity: "untrusted" },
        required: { maxConfidentiality: "confidential", minIntegrity: "user" },
        sources: [
          {
            kind: "tool",
            path: "steps[0]",
            tool: "mail.search",
            label: { confidentiality: "confidential", integrity: "untrusted" },
          },
          // Which mail (the first) is the planner's choice too: the query does not say.
          {
            kind: "literal",
            path: "steps[3].args.to.path",
            label: { confidentiality: "public", integrity: "app" },
          },
        ],
        sourcesTruncated: false,
        endorsable: false,
      },
    ]);
  });

  it("under onViolation: ask, the same flow is endorsable and the plan goes ahead", () => {
    const bad = exampleWith(3, "to", ref("inv", 0, "from"));
    const v = verify(bad, ctx({ policy: policy({ ...EXAMPLE_POLICY_INPUT, onViolation: "ask" }) }));
    expect(v.ok).toBe(true);
    expect(v.violations.map((x) => [x.argument, x.endorsable])).toEqual([["to", true]]);
  });

  it("without the tenant's relaxations, the secure defaults reject both arguments", () => {
    const v = verify(EXAMPLE_PLAN, ctx({ policy: policy({}) }));
    expect(brief(v)).toEqual(["steps[3] to integrity", "steps[3] body integrity"]);
  });
});

describe("literals by provenance", () => {
  const pay = (to: Json, amount: Json) => plan(transfer("t", to, amount));

  it("a string the user stated (any ASCII case) is (public, user)", () => {
    expect(verify(pay(lit("BOB@example.com"), lit(1250))).ok).toBe(true);
  });

  it("a string only the planner (or an app's metadata) wrote is (public, app)", () => {
    const v = verify(pay(lit("mallory@evil.example"), lit(1250)));
    expect(brief(v)).toEqual(["steps[0] to integrity"]);
    expect(v.violations[0]?.label).toEqual({ confidentiality: "public", integrity: "app" });
    expect(v.violations[0]?.sources).toEqual([
      { kind: "literal", path: "steps[0].args.to", label: { confidentiality: "public", integrity: "app" } },
    ]);
  });

  it("case folding is ASCII only: a Kelvin sign does not pass for a k", () => {
    const c = world(EXAMPLE_POLICY_INPUT, { query: "send it to kate@example.com" });
    expect(verify(pay(lit("Kate@example.com"), lit("send it")), c).ok).toBe(true);
    expect(verify(pay(lit("\u212Aate@example.com"), lit("send it")), c).ok).toBe(false);
  });

  it("a number written in the query is (public, user); another number is (public, app)", () => {
    expect(verify(pay(lit("bob@example.com"), lit(4471))).ok).toBe(true);
    expect(verify(pay(lit("bob@example.com"), lit(1250))).ok).toBe(true); // "1,250.00"
    expect(brief(verify(pay(lit("bob@example.com"), lit(12500))))).toEqual(["steps[0] amount integrity"]);
    expect(brief(verify(pay(lit("bob@example.com"), lit(447))))).toEqual(["steps[0] amount integrity"]);
  });

  it("true, false and null are the user's only where the query writes them", () => {
    expect(brief(verify(pay(lit(null), lit(false))))).toEqual([
      "steps[0] to integrity",
      "steps[0] amount integrity",
    ]);
    const c = world(EXAMPLE_POLICY_INPUT, { query: `${QUERY}; null is fine, false otherwise` });
    expect(verify(pay(lit(null), lit(false)), c).ok).toBe(true);
  });

  it("composite literals are the join of their keys and leaves", () => {
    expect(verify(pay(lit(["bob@example.com", 4471]), lit({ invoice: 4471 }))).ok).toBe(true);
    expect(brief(verify(pay(lit(["bob@example.com", "eve@evil.example"]), lit(1250))))).toEqual([
      "steps[0] to integrity",
    ]);
    // A key the query does not state is a planner's literal like any other.
    expect(brief(verify(pay(lit("bob@example.com"), lit({ iban: 4471 }))))).toEqual([
      "steps[0] amount integrity",
    ]);
  });

  it("a one- or two-letter string must be a whole word of the query, the empty string never is", () => {
    expect(verify(pay(lit("to"), lit(1250))).ok).toBe(true); // "…to bob…"
    expect(brief(verify(pay(lit("ay"), lit(1250))))).toEqual(["steps[0] to integrity"]); // only inside "Pay"
    expect(brief(verify(pay(lit(""), lit(1250))))).toEqual(["steps[0] to integrity"]);
  });

  it("reads every number the query writes as stated: an invoice number passes for an amount", () => {
    // Provenance knows the user wrote 4471 and 1,250.00, not which is the amount: both pass, 4472 does
    // not. What the number means is for the user to check in the consent, which shows it.
    expect(verify(pay(lit("bob@example.com"), lit(4471))).ok).toBe(true);
    expect(verify(pay(lit("bob@example.com"), lit(1250))).ok).toBe(true);
    expect(brief(verify(pay(lit("bob@example.com"), lit(4472))))).toEqual(["steps[0] amount integrity"]);
  });

  it("a projection path is a literal: which entry of a list, which field", () => {
    const contacts = plan(retrieve("c", "contact"), transfer("t", ref("c", 7, "email")));
    expect(brief(verify(contacts))).toEqual(["steps[1] to integrity"]);
    expect(verify(plan(retrieve("c", "contact"), transfer("t", ref("c", "email")))).ok).toBe(true);
  });
});

describe("label propagation", () => {
  it("retrieve binds the artifact's stored label", () => {
    const v = verify(plan(retrieve("c", "contact"), transfer("t", ref("c", "email"))));
    expect(v.ok).toBe(true);
    expect(v.labels.get("c")).toEqual({ confidentiality: "internal", integrity: "user" });
    const leak = verify(plan(retrieve("s", "secret"), transfer("t", lit("bob@example.com"), ref("s"))));
    expect(brief(leak)).toEqual(["steps[1] amount confidentiality"]);
    expect(leak.violations[0]?.sources).toEqual([
      expect.objectContaining({ kind: "artifact", artifact: "secret", path: "steps[0]" }),
    ]);
  });

  it("a stored label with levels the tenant no longer has fails closed to the top", () => {
    expect(verify(plan(retrieve("s", "stale"))).labels.get("s")).toEqual({
      confidentiality: "secret",
      integrity: "untrusted",
    });
  });

  it("tool output = join(output baseline, argument labels, pc)", () => {
    const v = verify(
      plan(
        fetchWeb("w"),
        tool("a", "contacts.lookup", { name: lit("accountant") }),
        tool("b", "contacts.lookup", { name: ref("w") }),
        retrieve("s", "secret"),
        tool("n", "notes.save", { text: ref("s") }),
      ),
      world(EXAMPLE_POLICY_INPUT, { catalog: { ...CATALOG, "notes.save": entry({ clearance: "secret" }) } }),
    );
    expect(v.labels.get("a")).toEqual({ confidentiality: "internal", integrity: "user" }); // tenant: contacts output user
    expect(v.labels.get("b")).toEqual({ confidentiality: "internal", integrity: "untrusted" }); // its input was untrusted
    expect(v.labels.get("n")).toEqual({ confidentiality: "secret", integrity: "untrusted" });
  });

  it("an app cannot vouch for its own output: a declared integrity is ignored", () => {
    const vouching = {
      ...CATALOG,
      "web.fetch": entry({ output: { confidentiality: "public", integrity: "user" } }),
    };
    const v = verify(plan(fetchWeb("w")), world(EXAMPLE_POLICY_INPUT, { catalog: vouching }));
    expect(v.labels.get("w")).toEqual({ confidentiality: "public", integrity: "untrusted" });
  });

  it("q-llm output = join(input labels, its planner-written prompt and schema, pc): never more trusted", () => {
    const v = verify(
      plan(
        retrieve("c", "contact"),
        fetchWeb("w"),
        qllm("clean", { c: ref("c") }),
        qllm("mixed", { c: ref("c"), w: ref("w") }),
        transfer("ok", ref("clean", "v")),
        transfer("bad", ref("mixed", "v")),
      ),
    );
    // The prompt was written by the planner, not stated by the user: the output is at most `app`.
    expect(v.labels.get("clean")).toEqual({ confidentiality: "internal", integrity: "app" });
    expect(v.labels.get("mixed")).toEqual({ confidentiality: "internal", integrity: "untrusted" });
    expect(brief(v)).toEqual(["steps[4] to integrity", "steps[5] to integrity"]);
  });

  it("a q-llm step with no inputs cannot mint user integrity from its prompt", () => {
    const minted = { ...qllm("minted", {}), prompt: "Return the address eve@evil.example" };
    const v = verify(plan(minted, transfer("t", ref("minted", "v"))));
    expect(v.labels.get("minted")).toEqual({ confidentiality: "public", integrity: "app" });
    expect(brief(v)).toEqual(["steps[1] to integrity"]);
  });

  it("constructed values are the join of their parts; projections keep the whole's label", () => {
    const v = verify(
      plan(
        retrieve("c", "contact"),
        fetchWeb("w"),
        transfer("ok", { obj: { email: ref("c", "email"), invoice: lit("invoice 4471") } }),
        transfer("bad", { arr: [ref("c", "email"), ref("w", "body", 0)] }),
      ),
    );
    expect(brief(v)).toEqual(["steps[3] to integrity"]);
  });

  it("the loop variable is the label of `over` joined with pc", () => {
    const fromWeb = verify(
      plan(fetchWeb("w"), loop(ref("w", "rows"), "row", [transfer("t", ref("row", "to"))])),
    );
    expect(brief(fromWeb)).toContain("steps[1].body[0] to integrity");
    expect(fromWeb.labels.get("row")).toEqual({ confidentiality: "public", integrity: "untrusted" });
    const fromContact = verify(
      plan(retrieve("c", "contact"), loop(ref("c"), "x", [transfer("t", ref("x"))])),
    );
    expect(fromContact.ok).toBe(true);
  });

  it("a loop's out is its collect joined with the loop's pc", () => {
    const v = verify(
      plan(
        fetchWeb("w"),
        loop(ref("w"), "row", [], lit("bob@example.com"), "all"),
        transfer("t", ref("all")),
      ),
    );
    expect(v.labels.get("all")).toEqual({ confidentiality: "public", integrity: "untrusted" });
    expect(brief(v)).toEqual(["steps[2] to integrity"]);
  });
});

describe("program counter (implicit flows)", () => {
  it("a tool call in a branch on untrusted data is checked at untrusted integrity, at the call", () => {
    const v = verify(
      plan(fetchWeb("w"), cond(eq(ref("w"), lit(1250)), [transfer("t", lit("bob@example.com"))])),
    );
    // Whether the transfer runs is what the guard decided; the literals keep the user's integrity.
    expect(brief(v)).toEqual(["steps[1].then[0] (call) integrity"]);
    expect(v.violations[0]?.sources).toEqual([
      expect.objectContaining({ kind: "guard", path: "steps[1].if" }),
      expect.objectContaining({ kind: "tool", tool: "web.fetch", path: "steps[0]" }),
    ]);
  });

  it("the else branch is under the same pc", () => {
    const v = verify(
      plan(fetchWeb("w"), cond(eq(ref("w"), lit(1)), [], [transfer("t", lit("bob@example.com"))])),
    );
    expect(v.ok).toBe(false);
  });

  it("a branch on data the user stated or trusts is fine", () => {
    const v = verify(
      plan(
        retrieve("c", "contact"),
        cond(eq(ref("c", "email"), lit(4471)), [transfer("t", lit("bob@example.com"))]),
      ),
    );
    expect(v.ok).toBe(true);
  });

  it("checks the call itself even when every argument was relaxed", () => {
    const relaxed = { tools: { "bank.transfer": { args: { to: { minIntegrity: "untrusted" } } } } } as const;
    const v = verify(
      plan(fetchWeb("w"), cond(eq(ref("w"), lit(1)), [tool("t", "bank.transfer", { to: ref("w") })])),
      world(relaxed),
    );
    expect(brief(v)).toEqual(["steps[1].then[0] (call) integrity"]);
  });

  it("a branch on secret data may not call an app cleared below it (confidentiality of pc)", () => {
    const v = verify(
      plan(retrieve("s", "secret"), cond(eq(ref("s"), lit(1)), [tool("n", "notes.save", {})])),
    );
    expect(brief(v)).toEqual(["steps[1].then[0] (call) confidentiality"]);
  });

  it("nested guards accumulate, and a step's result carries the pc", () => {
    const v = verify(
      plan(
        fetchWeb("w"),
        retrieve("s", "secret"),
        cond(eq(ref("w"), lit(1)), [cond(eq(ref("s"), lit(1)), [qllm("q", { x: lit(1) })])]),
      ),
    );
    expect(v.labels.get("q")).toEqual({ confidentiality: "secret", integrity: "untrusted" });
  });
});

describe("a steerable call", () => {
  const steer = (tools: Record<string, unknown>) =>
    verify(
      plan(fetchWeb("w"), cond(eq(ref("w"), lit(1250)), [transfer("t", lit("bob@example.com"))])),
      world({ tools } as never),
    );
  it("may run in a branch on untrusted data when every argument meets its own floor", () => {
    expect(steer({ "bank.transfer": { steerable: true } }).ok).toBe(true);
  });
  it("control: without it the call is refused for its pc", () => {
    expect(brief(steer({}))).toEqual(["steps[1].then[0] (call) integrity"]);
  });

  it("a lowered call floor does not let content decide whether guarded values go", () => {
    // The tenant lowered the transfer's own floor but kept its arguments at `user`: a branch or a
    // loop on the page must still not decide whether (or how often) they are paid.
    const guarded = {
      minInputIntegrity: "untrusted",
      args: { to: { minIntegrity: "user" }, amount: { minIntegrity: "user" } },
    };
    expect(brief(steer({ "bank.transfer": guarded }))).toEqual(["steps[1].then[0] (call) integrity"]);
    const looped = verify(
      plan(fetchWeb("w"), loop(ref("w"), "x", [transfer("t", lit("bob@example.com"))])),
      world({ tools: { "bank.transfer": guarded } } as never),
    );
    expect(brief(looped)).toEqual(["steps[1].body[0] (call) integrity"]);
    // Control: made steerable, the same calls run (each argument still meets its own floor).
    expect(steer({ "bank.transfer": { ...guarded, steerable: true } }).ok).toBe(true);
  });
});

describe("select: a comparison's label", () => {
  // The contact artifact is (internal, user); web.fetch answers (public, untrusted). "email" is in
  // the query, "price" is not: in apps mode a path the user did not state is the planner's choice.
  it.each([
    [
      "a trusted list by a stated field",
      plan(retrieve("c", "contact"), select("s", ref("c"), "min", ["email"])),
      "internal",
      "user",
    ],
    [
      "an untrusted list: the pick is as untrusted as the list",
      plan(fetchWeb("w"), select("s", ref("w"), "min", ["email"])),
      "public",
      "untrusted",
    ],
    [
      "a trusted list filtered by an untrusted value",
      plan(
        retrieve("c", "contact"),
        fetchWeb("w"),
        select("s", ref("c"), "all", undefined, [{ path: ["email"], equals: ref("w") }]),
      ),
      "internal",
      "untrusted",
    ],
    [
      "a field the user did not state: the planner's path",
      plan(retrieve("c", "contact"), select("s", ref("c"), "min", ["price"])),
      "internal",
      "app",
    ],
    [
      "under a guard on untrusted data: pc joins",
      plan(
        retrieve("c", "contact"),
        fetchWeb("w"),
        cond(eq(ref("w"), lit(1)), [select("s", ref("c"), "min", ["email"])]),
      ),
      "internal",
      "untrusted",
    ],
  ])("%s", (_, p, confidentiality, integrity) => {
    expect(verify(p).labels.get("s")).toEqual({ confidentiality, integrity });
  });

  it("an irreversible call on the pick meets its floor only when the list did, and names what caused it", () => {
    const trusted = verify(
      plan(
        retrieve("c", "contact"),
        select("s", ref("c"), "min", ["email"]),
        transfer("t", ref("s", "email")),
      ),
    );
    expect(trusted.ok).toBe(true);
    const steered = verify(
      plan(fetchWeb("w"), select("s", ref("w"), "min", ["email"]), transfer("t", ref("s", "email"))),
    );
    expect(brief(steered)).toEqual(["steps[2] to integrity"]);
    expect(steered.violations[0]?.sources).toEqual([
      expect.objectContaining({ kind: "tool", tool: "web.fetch", path: "steps[0]" }),
    ]);
    const byPlanner = verify(
      plan(
        retrieve("c", "contact"),
        select("s", ref("c"), "min", ["price"]),
        transfer("t", ref("s", "email")),
      ),
    );
    expect(byPlanner.violations[0]?.sources).toContainEqual(
      expect.objectContaining({ kind: "literal", path: "steps[1]" }),
    );
  });
});
