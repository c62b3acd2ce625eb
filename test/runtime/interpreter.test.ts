import { describe, expect, it } from "vitest";
import { StepFailure } from "../../src/runtime/index.ts";
import { cond, display, eq, type Json, lit, loop, plan, qllm, ref, tool } from "../policy/builders.ts";
import { policy } from "../policy/fixtures.ts";
import { fakeEffects, MemoryJournal, runToEnd } from "./kit.ts";

const NOTES = [
  { title: "rent", amount: 900, by: { name: "Ann" } },
  { title: "gym", amount: 40, by: { name: "Bo" } },
];
const answers = {
  "notes.list": () => ({ notes: NOTES }),
  "contacts.lookup": (args: Record<string, unknown>) => ({ email: `${String(args.name)}@x.test` }),
  "mail.send": () => ({ sent: true }),
  "mail.search": () => ({ hits: 3 }),
};

async function failureOf(promise: Promise<unknown>): Promise<StepFailure> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof StepFailure)) throw new Error(`expected a StepFailure, got ${String(error)}`);
  return error;
}

describe("interpreter: conditions", () => {
  it("takes the branch the data picks, and a call inside it carries the guard's label as pc", async () => {
    const p = plan(
      tool("n", "notes.list", {}),
      cond(
        eq(ref("n", "notes", 0, "title"), lit("rent")),
        [tool("c", "contacts.lookup", { name: lit("landlord") })],
        [tool("m", "mail.search", { query: lit("invoice") })],
      ),
    );
    // The gate may see a call more than once (an advance that yields replays to it): it is idempotent.
    const pcs = new Map<string, string>();
    const effects = fakeEffects(answers, {
      gate: async (target, _key, _args, pc) => {
        pcs.set(target.tool, pc.label.integrity);
        return "go";
      },
    });
    const { outcome } = await runToEnd(p, effects, { query: "who is my landlord" });
    expect(outcome.state).toBe("done");
    expect(effects.calls.map((c) => [c.tool, c.key])).toEqual([
      ["notes.list", "steps[0]"],
      ["contacts.lookup", "steps[1].then[0]"],
    ]);
    // The first call runs at the trusted top; the guarded one under the notes' untrusted integrity.
    expect(Object.fromEntries(pcs)).toEqual({ "notes.list": "user", "contacts.lookup": "untrusted" });
  });

  it("takes the else branch when the predicate fails, comparing unlike types as false", async () => {
    const p = plan(
      tool("n", "notes.list", {}),
      cond(
        eq(ref("n", "notes", 0, "amount"), lit("900")),
        [tool("c", "contacts.lookup", { name: lit("x") })],
        [tool("m", "mail.search", { query: lit("invoice") })],
      ),
    );
    const effects = fakeEffects(answers);
    await runToEnd(p, effects);
    expect(effects.calls.map((c) => c.tool)).toEqual(["notes.list", "mail.search"]);
  });

  it("reads `exists` on a missing path as false instead of failing", async () => {
    const p = plan(
      tool("n", "notes.list", {}),
      cond({ op: "exists", value: ref("n", "notes", 5) }, [tool("c", "contacts.lookup", { name: lit("x") })]),
    );
    const effects = fakeEffects(answers);
    const { outcome } = await runToEnd(p, effects);
    expect(outcome.state).toBe("done");
    expect(effects.calls.map((c) => c.tool)).toEqual(["notes.list"]);
  });
});

describe("interpreter: loops and projections", () => {
  it("runs the body per item with the item's projection, and collects", async () => {
    const p = plan(
      tool("n", "notes.list", {}),
      loop(
        ref("n", "notes"),
        "note",
        [tool("c", "contacts.lookup", { name: ref("note", "by", "name") })],
        ref("c"),
        "all",
      ),
      display(ref("all")),
    );
    const journal = new MemoryJournal();
    const effects = fakeEffects(answers);
    const { outcome } = await runToEnd(p, effects, { journal });
    expect(outcome.state).toBe("done");
    expect(effects.calls.map((c) => [c.key, c.args])).toEqual([
      ["steps[0]", {}],
      ["steps[1]#0.body[0]", { name: "Ann" }],
      ["steps[1]#1.body[0]", { name: "Bo" }],
    ]);
    expect(journal.shown[0]?.value).toEqual([{ email: "Ann@x.test" }, { email: "Bo@x.test" }]);
    if (outcome.state !== "done") return;
    // Only results outside a loop body are kept: the list and the loop's collection.
    expect(outcome.results.map((r) => r.name)).toEqual(["n", "all"]);
  });

  it("fails closed on a loop over something that is not a list", async () => {
    const p = plan(tool("n", "notes.list", {}), loop(ref("n", "notes", 0), "x", [display(ref("x"))]));
    const error = await failureOf(runToEnd(p, fakeEffects(answers)));
    expect(error.code).toBe("loop_over_non_array");
  });

  it("fails closed on a loop longer than the tenant allows", async () => {
    const p = plan(tool("n", "notes.list", {}), loop(ref("n", "notes"), "x", [display(ref("x"))]));
    const strict = policy({ limits: { maxLoopIterations: 1 } });
    const error = await failureOf(runToEnd(p, fakeEffects(answers), { policy: strict }));
    expect(error.code).toBe("loop_too_long");
  });

  it("fails closed on a projection through a missing key, naming where", async () => {
    const p = plan(tool("n", "notes.list", {}), display(ref("n", "notes", 0, "nope")));
    const error = await failureOf(runToEnd(p, fakeEffects(answers)));
    expect(error.code).toBe("projection_failed");
    expect(error.message).toContain('n["notes"][0]["nope"]');
  });

  it("does not read inherited properties through a projection", async () => {
    const p = plan(tool("n", "notes.list", {}), display(ref("n", "notes", "constructor")));
    const error = await failureOf(runToEnd(p, fakeEffects(answers)));
    expect(error.code).toBe("projection_failed");
  });
});

describe("interpreter: durable steps", () => {
  it("performs one call per advance and never repeats a journaled one", async () => {
    const p = plan(
      tool("n", "notes.list", {}),
      tool("c", "contacts.lookup", { name: lit("accountant") }),
      display(ref("c", "email")),
    );
    const effects = fakeEffects(answers);
    const { outcome, advances, journal } = await runToEnd(p, effects);
    expect(outcome.state).toBe("done");
    expect(advances).toBe(2); // two calls, each its own advance; the second runs on to the end
    expect(effects.calls).toHaveLength(2);
    expect(journal.shown.map((d) => d.value)).toEqual(["accountant@x.test"]);
  });

  it("runs the calls back to back in one pass until its deadline, each journaled before the next", async () => {
    const p = plan(
      tool("n", "notes.list", {}),
      tool("a", "contacts.lookup", { name: lit("accountant") }),
      tool("b", "contacts.lookup", { name: lit("landlord") }),
      display(ref("b", "email")),
    );
    // Within its deadline: the whole plan in one advance.
    const far = fakeEffects(answers);
    const whole = await runToEnd(p, far, { budget: 1_000, deadline: () => Date.now() + 60_000 });
    expect(whole.advances).toBe(1);
    expect(far.calls).toHaveLength(3);
    // Past it: one call per advance (the first call of a run always goes), nothing called twice.
    const journaled: string[] = [];
    const past = fakeEffects(answers);
    const journal = new MemoryJournal();
    const done = journal.done.bind(journal);
    journal.done = (key, ...rest) => {
      journaled.push(key);
      done(key, ...rest);
    };
    past.tool = async (target, key, args) => {
      // The previous call's effect is in the journal before this one is made.
      expect(journaled).toHaveLength(past.calls.length);
      past.calls.push({ tool: target.tool, key, args });
      return { value: answers[target.tool as keyof typeof answers](args) };
    };
    const stepped = await runToEnd(p, past, { journal, budget: 1_000, deadline: () => Date.now() - 1 });
    expect(stepped.advances).toBe(3);
    expect(past.calls.map((c) => c.key)).toEqual(["steps[0]", "steps[1]", "steps[2]"]);
    expect(stepped.journal.shown.map((d) => d.value)).toEqual(["landlord@x.test"]);
  });

  it("stops rather than repeat an irreversible call that was started and never finished", async () => {
    const p = plan(tool("s", "mail.send", { to: lit("accountant@x.test"), body: lit("hi") }));
    const journal = new MemoryJournal();
    journal.started("steps[0]", "tool", { tool: "mail.send" });
    const effects = fakeEffects(answers);
    const error = await failureOf(runToEnd(p, effects, { journal }));
    expect(error.code).toBe("interrupted_irreversible_call");
    expect(effects.calls).toHaveLength(0);
  });

  it("repeats an interrupted reversible call (the app deduplicates by idempotency key)", async () => {
    const p = plan(tool("n", "notes.list", {}));
    const journal = new MemoryJournal();
    journal.started("steps[0]", "tool", { tool: "notes.list" });
    const effects = fakeEffects(answers);
    const { outcome } = await runToEnd(p, effects, { journal });
    expect(outcome.state).toBe("done");
    expect(effects.calls).toHaveLength(1);
  });

  it("counts only tool and q-llm calls against maxCalls", async () => {
    const p = plan(
      tool("n", "notes.list", {}),
      display(lit("a")),
      display(lit("b")),
      tool("m", "mail.search", { query: lit("x") }),
    );
    const two = policy({ limits: { maxCalls: 2 } });
    const { outcome } = await runToEnd(p, fakeEffects(answers), { policy: two });
    expect(outcome.state).toBe("done");
    const one = policy({ limits: { maxCalls: 1 } });
    const error = await failureOf(runToEnd(p, fakeEffects(answers), { policy: one }));
    expect(error.code).toBe("too_many_calls");
  });

  it("pauses where the gate pauses, and calls nothing", async () => {
    const p = plan(tool("s", "mail.send", { to: lit("accountant@x.test"), body: lit("hi") }));
    const effects = fakeEffects(answers, { gate: async () => "pause" });
    const { outcome } = await runToEnd(p, effects);
    expect(outcome.state).toBe("pause");
    expect(effects.calls).toHaveLength(0);
  });
});

describe("interpreter: labels at run time", () => {
  it("gives a q-llm only its inputs under isolation, every value without it (the control)", async () => {
    const p = plan(
      tool("n", "notes.list", {}),
      tool("c", "contacts.lookup", { name: lit("accountant") }),
      qllm("s", { notes: ref("n") }),
    );
    const isolated = fakeEffects(answers);
    await runToEnd(p, isolated, { isolation: true });
    expect(Object.keys(isolated.qllmInputs[0] as object)).toEqual(["notes"]);
    const monolithic = fakeEffects(answers);
    await runToEnd(p, monolithic, { isolation: false });
    expect(Object.keys(monolithic.qllmInputs[0] as object).sort()).toEqual(["c", "n"]);
  });

  it("redacts a display above the display cap, and shows it without the cap (the control)", async () => {
    const p = plan(tool("m", "mail.search", { query: lit("invoice") }), display(ref("m")));
    const capped = policy({ display: { maxConfidentiality: "internal" } });
    const redacted = await runToEnd(p, fakeEffects(answers), { policy: capped });
    expect(redacted.journal.shown[0]).toMatchObject({
      redacted: true,
      label: { confidentiality: "confidential" },
    });
    const open = await runToEnd(p, fakeEffects(answers));
    expect(open.journal.shown[0]).toMatchObject({ redacted: false, value: { hits: 3 } });
  });

  it("labels an agent's answer untrusted once it read content, even from a trusted-output app", async () => {
    const p = plan(tool("c", "contacts.lookup", { name: lit("accountant") }), display(ref("c")));
    const trusting = policy({ tools: { "contacts.lookup": { output: { integrity: "user" } } } });
    const plain = await runToEnd(p, fakeEffects(answers), { policy: trusting });
    expect(plain.journal.shown[0]?.label.integrity).toBe("user");
    const reading = fakeEffects(answers, {
      tool: async () => ({ value: { email: "a@x.test" }, readUntrusted: true }),
    });
    const read = await runToEnd(p, reading, { policy: trusting });
    expect(read.journal.shown[0]?.label.integrity).toBe("untrusted");
  });
});

describe("interpreter: the work bound", () => {
  const items = (n: number) => lit(Array.from({ length: n }, (_, i) => i));
  const nested = (depth: number, n: number): Json =>
    depth === 0 ? display(ref("x0")) : loop(items(n), `x${depth - 1}`, [nested(depth - 1, n)]);

  it("stops four nested loops of 100 over literals (10⁸ display rows) at the bound, with a clear error", async () => {
    const journal = new MemoryJournal();
    const failure = await failureOf(runToEnd(plan(nested(4, 100)), fakeEffects(answers), { journal }));
    expect(failure.code).toBe("work_limit");
    expect(journal.shown.length).toBeLessThan(10_000);
  });

  it("control: with the bound raised, a plan of 3 nested loops of 40 (64,000 rows) that the default stops runs whole", async () => {
    const p = plan(nested(3, 40));
    expect((await failureOf(runToEnd(p, fakeEffects(answers)))).code).toBe("work_limit");
    const raised = policy({ limits: { maxWork: 100_000 } });
    const { journal } = await runToEnd(p, fakeEffects(answers), { policy: raised });
    expect(journal.shown.length).toBe(64_000);
  });
});

describe("interpreter: what trustedValues vouch for (#43)", () => {
  const p = plan(
    tool("c", "contacts.lookup", { name: lit("Dana") }),
    tool("m", "mail.search", { query: lit("x") }),
  );
  const contact = { email: "dana@corp.example", sender: "eve@evil.test" };
  type Answer = { value: unknown; readUntrusted?: boolean; relayed?: string[]; remembered?: string[] };

  /** Effects whose gate keeps the trusted leaves it was given at the last look at the second call. */
  function watching(first: () => Answer) {
    const seen = { leaves: [] as unknown[] };
    const effects = fakeEffects(answers, {
      // The gate may see a call more than once (a yield replays to it): the last look is the call's.
      gate: async (target, _key, _args, _pc, bound) => {
        if (target.tool === "mail.search") seen.leaves = [...bound()].flatMap((s) => s.trusted ?? []);
        return "go";
      },
      tool: async (target) => (target.tool === "contacts.lookup" ? first() : { value: { hits: 1 } }),
    });
    return { seen, effects };
  }

  async function vouched(paths: string[], first: () => Answer = () => ({ value: contact }), budget = 1) {
    const { seen, effects } = watching(first);
    const stored = policy({ tools: { "contacts.lookup": { trustedValues: paths } } });
    const { outcome } = await runToEnd(p, effects, { policy: stored, budget });
    expect(outcome.state).toBe("done");
    return seen.leaves;
  }

  it("a stored policy trusting `sender` vouches nothing for it; control: `email` of the same answer vouches", async () => {
    // parsePolicy (how stored documents are read) still takes the path; only a PUT refuses it.
    expect(await vouched(["sender"])).toEqual([]);
    expect(await vouched(["messages[].sender", "reply_to"])).toEqual([]);
    expect(await vouched(["email"])).toEqual(["dana@corp.example"]);
  });

  it("an agent's answer after it read content vouches nothing, journaled or not; control: unread, it vouches", async () => {
    const answer = { email: "attacker@evil.test" };
    // Budget 1: the second call's advance replays the first from the journal; 10: one advance, no replay.
    for (const budget of [1, 10]) {
      expect(await vouched(["email"], () => ({ value: answer, readUntrusted: true }), budget)).toEqual([]);
      expect(await vouched(["email"], () => ({ value: answer, readUntrusted: false }), budget)).toEqual([
        "attacker@evil.test",
      ]);
    }
  });

  it("nor one that relayed another app's answer or was given memory", async () => {
    const value = { email: "attacker@evil.test" };
    expect(await vouched(["email"], () => ({ value, relayed: ["internal"] }))).toEqual([]);
    expect(await vouched(["email"], () => ({ value, remembered: ["internal"] }))).toEqual([]);
  });

  it("a journal from before the mark: a label lowered by reading is enough to take no leaves", async () => {
    const trusting = policy({
      tools: { "contacts.lookup": { trustedValues: ["email"], output: { integrity: "user" } } },
    });
    const first = () => ({ value: { email: "attacker@evil.test" } });
    const fresh = new MemoryJournal();
    await runToEnd(p, watching(first).effects, { policy: trusting, journal: fresh });
    const done = fresh.entries.get("steps[0]")!;
    expect(done.label?.integrity).not.toBe("untrusted");
    const replayed = async (label: { confidentiality: string; integrity: string }) => {
      const journal = new MemoryJournal();
      journal.entries.set("steps[0]", { ...done, label });
      const { seen, effects } = watching(first);
      await runToEnd(p, effects, { policy: trusting, journal });
      return seen.leaves;
    };
    expect(await replayed({ ...done.label!, integrity: "untrusted" })).toEqual([]);
    // Control: the label the call computes (nothing read) takes the leaves.
    expect(await replayed(done.label!)).toEqual(["attacker@evil.test"]);
  });
});
