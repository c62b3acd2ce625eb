import { describe, expect, it } from "vitest";
import { indexQuery, policyLattices, validatePlan } from "../../src/policy/index.ts";
import { runPlan } from "../../src/runtime/interpreter.ts";
import { savedValue } from "../../src/runtime/values.ts";
import { policy, tinyChecker } from "../policy/fixtures.ts";
import { CATALOG, fakeEffects, MemoryJournal, TARGETS } from "./kit.ts";

/**
 * A kept value read back keeps who made it (#43): the first run's retrieve and the replay from the
 * journal (`fromJournal`) bind the same provenance, seen here on the display that shows it.
 */
const LABEL = { confidentiality: "internal", integrity: "untrusted" };
const plan = {
  steps: [
    { kind: "retrieve", out: "kept", artifact: "art_1" },
    { kind: "display", value: { ref: "kept" } },
  ],
};

async function run(journal: MemoryJournal, provenance: string[] | null) {
  const p = policy();
  const v = validatePlan(plan, {
    policy: p,
    query: "show what I kept",
    catalog: CATALOG,
    artifacts: { art_1: { label: LABEL } },
    checkSchema: tinyChecker,
  });
  if (!v.ok) throw new Error(JSON.stringify(v.details));
  const effects = fakeEffects(
    {},
    { retrieve: async () => savedValue({ value: "eve@evil.test", label: LABEL, provenance }) },
  );
  for (let i = 0; i < 5; i++) {
    const outcome = await runPlan({
      plan: v.plan,
      policy: p,
      lattices: policyLattices(p),
      targets: TARGETS,
      query: indexQuery("show what I kept"),
      journal: journal.entries,
      budget: 1,
      isolation: true,
      effects,
      record: journal,
    });
    if (outcome.state !== "yield") return outcome;
  }
  throw new Error("did not finish");
}

const shownFrom = (j: MemoryJournal) =>
  j.shown.map((s) => (s as unknown as { provenance: { from: string[] } }).provenance.from);

describe("a retrieved artifact's provenance", () => {
  it("is kept through retrieve and through the journal's replay", async () => {
    const journal = new MemoryJournal();
    expect((await run(journal, ["model"])).state).toBe("done");
    expect(shownFrom(journal)).toEqual([["artifacts", "model"]]);
    expect(journal.entries.get("steps[0]")?.info).toMatchObject({ provenance: ["artifacts", "model"] });
  });

  it("the replay binds what the journal recorded, not the store's read again", async () => {
    const journal = new MemoryJournal();
    await run(journal, ["model"]);
    // The display is journaled too: drop it so the replay shows the retrieve's value again.
    journal.entries.delete("steps[1]");
    journal.shown.length = 0;
    await run(journal, null);
    expect(shownFrom(journal)).toEqual([["artifacts", "model"]]);
  });

  it("control: a value kept before provenance was recorded reads as saved data only", async () => {
    const journal = new MemoryJournal();
    await run(journal, null);
    expect(shownFrom(journal)).toEqual([["artifacts"]]);
  });
});
