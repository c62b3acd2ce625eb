import { describe, expect, it } from "vitest";
import { type PlanContext, type ValidationRule, validatePlan } from "../../src/policy/index.ts";
import {
  cond,
  display,
  eq,
  type Json,
  lit,
  loop,
  plan,
  qllm,
  ref,
  retrieve,
  select,
  tool,
} from "./builders.ts";
import { clone, ctx, EXAMPLE_PLAN, policy, tinyChecker } from "./fixtures.ts";

const world = (over: Partial<PlanContext> = {}) =>
  ctx({ artifacts: { a1: { label: { confidentiality: "internal", integrity: "user" } } }, ...over });

function errors(input: unknown, over: Partial<PlanContext> = {}) {
  const r = validatePlan(input, world(over));
  return r.ok ? [] : r.details;
}

function expectOk(input: unknown, over: Partial<PlanContext> = {}) {
  expect(errors(input, over)).toEqual([]);
}

/** The plan fails with exactly this rule at this path (maybe among others). */
function expectRule(input: unknown, rule: ValidationRule, path: string, over: Partial<PlanContext> = {}) {
  const errs = errors(input, over);
  expect(errs, JSON.stringify(errs)).toContainEqual(expect.objectContaining({ rule, path }));
}

const search = (out: string) => tool(out, "mail.search", { query: lit("invoice") });

describe("validatePlan", () => {
  it("accepts DSL.md's example", () => {
    expectOk(EXAMPLE_PLAN, { checkSchema: tinyChecker });
  });

  it("returns the input itself, typed as a valid plan", () => {
    const input = clone(EXAMPLE_PLAN);
    const r = validatePlan(input, world());
    expect(r.ok && r.plan).toBe(input);
  });

  describe("json: only plain, bounded JSON", () => {
    it.each([
      ["NaN", plan(display(lit(Number.NaN as never)))],
      ["undefined", { steps: [undefined] }],
      ["a function", { steps: [() => 1] }],
      ["a Date", { steps: [new Date()] }],
    ])("refuses %s", (_, input) => {
      expect(errors(input)[0]?.rule).toBe("json");
    });

    it("refuses a __proto__ key anywhere, even inside a literal", () => {
      const input = JSON.parse('{"steps": [{"kind": "display", "value": {"lit": {"__proto__": {"x": 1}}}}]}');
      expect(errors(input)).toEqual([
        { path: "steps[0].value.lit", rule: "json", message: 'the key "__proto__" is not allowed' },
      ]);
      expectOk(plan(display(lit({ proto: { x: 1 } }))));
    });

    it("refuses nesting beyond the hard cap, and cycles", () => {
      let deep: Json = 1;
      for (let i = 0; i < 300; i++) deep = [deep];
      expect(errors(plan(display(lit(deep))))[0]?.rule).toBe("json");
      const cyclic: Record<string, unknown> = { kind: "display" };
      cyclic.value = cyclic;
      expect(errors({ steps: [cyclic] })[0]?.rule).toBe("json");
    });
  });

  describe("shape: required fields and types per kind", () => {
    it("requires the fields of each kind", () => {
      const { intent: _, ...noIntent } = search("s");
      expectRule(plan(noIntent), "required", "steps[0].intent");
      expectRule({ steps: [{ out: "x" }] }, "required", "steps[0].kind");
      expectRule({}, "required", "steps");
      expectOk(plan(search("s")));
    });

    it("checks field types", () => {
      expectRule({ steps: "all" }, "type", "steps");
      expectRule(plan({ ...search("s"), args: [] }), "type", "steps[0].args");
      expectRule(plan(display(lit(1), 5 as never)), "type", "steps[0].title");
      expectRule(plan(display("s" as never)), "type", "steps[0].value");
      expectOk(plan(display(lit(1), "a title")));
    });

    it("rejects unknown kinds", () => {
      expectRule(plan({ kind: "exec", command: "rm" }), "unknown_kind", "steps[0].kind");
    });

    it("rejects unknown fields of a step and of an expression", () => {
      expectRule(plan({ ...display(lit(1)), id: "s1" }), "unknown_field", "steps[0].id");
      expectRule(
        plan(search("s"), display({ ref: "s", extra: true })),
        "unknown_field",
        "steps[1].value.extra",
      );
      expectRule(plan(display({ lit: 1, ref: "x" })), "type", "steps[0].value");
    });

    it("explains the expression the planner evidently meant", () => {
      expectRule(
        plan(search("s"), display({ ref: "s", path: [-1] })),
        "invalid_value",
        "steps[1].value.path[0]",
      );
      expectRule(plan(display({ ref: 3 })), "type", "steps[0].value.ref");
      expectOk(plan(search("s"), display(ref("s", "items", 0, "to"))));
    });

    it("rejects unknown predicate ops", () => {
      expectRule(
        plan(cond({ op: "matches", left: lit(1), right: lit(2) }, [])),
        "unknown_op",
        "steps[0].if.op",
      );
      expectOk(plan(cond({ op: "not", arg: { op: "exists", value: lit(1) } }, [])));
    });

    it("checks values: non-empty strings and lists, an object-rooted q-llm schema", () => {
      expectRule(plan({ ...search("s"), intent: "" }), "invalid_value", "steps[0].intent");
      expectRule(plan(cond({ op: "and", args: [] }, [])), "invalid_value", "steps[0].if.args");
      expectRule(
        plan({ ...qllm("q", {}), schema: { type: "array" } }),
        "invalid_value",
        "steps[0].schema.type",
      );
      expectOk(plan(qllm("q", { x: lit(1) })));
    });
  });

  describe("predicates only in condition.if", () => {
    it("rejects a predicate used as an expression", () => {
      expectRule(plan(display(eq(lit(1), lit(1)))), "predicate_misplaced", "steps[0].value");
      expectRule(
        plan(cond(eq(eq(lit(1), lit(1)), lit(true)), [])),
        "predicate_misplaced",
        "steps[0].if.left",
      );
    });

    it("rejects a predicate used as a step", () => {
      expectRule(plan(eq(lit(1), lit(1))), "predicate_misplaced", "steps[0]");
    });

    it("accepts a predicate as condition.if", () => {
      expectOk(plan(cond(eq(lit(1), lit(1)), [display(lit(1))])));
    });
  });

  describe("names: bound once, non-empty, not reserved", () => {
    it("rejects an empty name", () => {
      expectRule(plan(search("")), "name_empty", "steps[0].out");
    });

    it("rejects a name that is not an identifier", () => {
      expectRule(plan(search("two words")), "name_invalid", "steps[0].out");
      expectRule(plan(search("1st")), "name_invalid", "steps[0].out");
    });

    it("rejects reserved words", () => {
      expectRule(plan(search("query")), "name_reserved", "steps[0].out");
      expectRule(plan(search("__proto__")), "name_reserved", "steps[0].out");
      expectRule(plan(loop(lit([]), "constructor", [])), "name_reserved", "steps[0].as");
      expectOk(plan(search("query_results")));
    });

    it("rejects a name bound twice, even in different branches or as a loop variable", () => {
      expectRule(plan(search("s"), search("s")), "name_duplicate", "steps[1].out");
      expectRule(
        plan(cond(eq(lit(1), lit(1)), [search("s")], [search("s")])),
        "name_duplicate",
        "steps[0].else[0].out",
      );
      expectRule(plan(search("s"), loop(ref("s"), "s", [])), "name_duplicate", "steps[1].as");
      expectRule(plan(loop(lit([]), "x", [], ref("x"), "x")), "name_duplicate", "steps[0].out");
      expectOk(plan(search("s1"), search("s2")));
    });
  });

  describe("definition before use, lexical scopes", () => {
    it("rejects a reference to a name bound nowhere", () => {
      expectRule(plan(display(ref("ghost"))), "ref_undefined", "steps[0].value");
    });

    it("rejects a use before the definition, and a step using its own result", () => {
      expectRule(plan(display(ref("s")), search("s")), "ref_not_visible", "steps[0].value");
      expectRule(
        plan(tool("s", "mail.search", { query: ref("s") })),
        "ref_not_visible",
        "steps[0].args.query",
      );
    });

    it("keeps names bound in a branch inside it", () => {
      const p = plan(cond(eq(lit(1), lit(1)), [search("s"), display(ref("s"))]), display(ref("s")));
      expectRule(p, "ref_not_visible", "steps[1].value");
      expect(errors(p)).toHaveLength(1);
      expectRule(
        plan(cond(eq(lit(1), lit(1)), [search("s")], [display(ref("s"))])),
        "ref_not_visible",
        "steps[0].else[0].value",
      );
    });

    it("sees outer names inside branches and loop bodies", () => {
      expectOk(
        plan(
          search("s"),
          cond(eq(ref("s"), lit(1)), [display(ref("s"))]),
          loop(ref("s"), "e", [display(ref("s"))]),
        ),
      );
    });

    it("keeps the loop variable and body names inside the loop; its collect sees them; its out is visible after", () => {
      expectRule(
        plan(search("s"), loop(ref("s"), "e", []), display(ref("e"))),
        "ref_not_visible",
        "steps[2].value",
      );
      expectRule(plan(loop(ref("e"), "e", [])), "ref_not_visible", "steps[0].over");
      expectRule(
        plan(search("s"), loop(ref("s"), "e", [qllm("q", { x: ref("e") })]), display(ref("q"))),
        "ref_not_visible",
        "steps[2].value",
      );
      expectOk(
        plan(
          search("s"),
          loop(ref("s"), "e", [qllm("q", { x: ref("e") })], { obj: { e: ref("e"), q: ref("q") } }, "all"),
          display(ref("all")),
        ),
      );
    });

    it("requires a loop's collect and out together", () => {
      expectRule(plan(loop(lit([1]), "e", [], ref("e"))), "loop_collect_out", "steps[0]");
      expectRule(plan({ ...loop(lit([1]), "e", []), out: "r" }), "loop_collect_out", "steps[0]");
    });
  });

  describe("artifacts and tools the planner was shown", () => {
    it("rejects an artifact the planner was not shown", () => {
      expectRule(plan(retrieve("r", "a2")), "artifact_unknown", "steps[0].artifact");
      expectRule(plan(retrieve("r", "hasOwnProperty")), "artifact_unknown", "steps[0].artifact");
      expectOk(plan(retrieve("r", "a1")));
    });

    it("rejects a functionality that is not an approved catalog entry", () => {
      expectRule(plan(tool("x", "bank.transfer", {})), "tool_unknown", "steps[0].tool");
      expectRule(plan(tool("x", "constructor", {})), "tool_unknown", "steps[0].tool");
    });
  });

  describe("arguments against the request schema", () => {
    it("rejects an argument the schema does not have", () => {
      expectRule(
        plan(tool("s", "mail.search", { query: lit("invoice"), limit: lit(5) })),
        "arg_unknown",
        "steps[0].args.limit",
      );
    });

    it("rejects a missing required argument", () => {
      expectRule(plan(tool("s", "mail.search", {})), "arg_missing", "steps[0].args");
    });

    it("checks literal arguments with the injected checker, and leaves references to run time", () => {
      const bad = plan(tool("s", "mail.search", { query: lit(42) }));
      expectRule(bad, "arg_literal", "steps[0].args", { checkSchema: tinyChecker });
      expectOk(bad); // no checker: names only
      expectRule(
        plan(tool("s", "mail.search", { query: { arr: [lit("a")] } })),
        "arg_literal",
        "steps[0].args",
        {
          checkSchema: tinyChecker,
        },
      );
      expectOk(plan(search("s"), tool("t", "mail.search", { query: ref("s", "subject") })), {
        checkSchema: tinyChecker,
      });
    });

    it("gives the checker only the literal arguments, with required narrowed to them", () => {
      const seen: unknown[] = [];
      const spy = (schema: unknown, value: unknown) => {
        seen.push(schema, value);
        return [];
      };
      validatePlan(
        plan(search("s"), tool("m", "mail.send", { to: lit("bob@example.com"), body: ref("s") })),
        world({ checkSchema: spy }),
      );
      // seen[0..1] is the search step; then mail.send's schema and value.
      expect(seen[3]).toEqual({ to: "bob@example.com" });
      expect((seen[2] as { required: string[] }).required).toEqual(["to"]);
    });

    it("refuses (never throws) when the checker throws", () => {
      const boom = () => {
        throw new Error("checker bug");
      };
      expectRule(plan(search("s")), "arg_literal", "steps[0].args", { checkSchema: boom });
    });
  });

  describe("limits of the tenant policy", () => {
    const limits = (maxSteps: number, maxDepth: number) => ({
      policy: policy({ limits: { maxSteps, maxDepth } }),
    });

    it("rejects a plan with more steps than maxSteps (nested steps count)", () => {
      const p = plan(display(lit(1)), cond(eq(lit(1), lit(1)), [display(lit(2))]));
      expectOk(p, limits(3, 4));
      expect(errors(p, limits(2, 4))).toEqual([
        { path: "steps", rule: "limit_steps", message: "the plan has more than 2 steps" },
      ]);
    });

    it("rejects nesting deeper than maxDepth", () => {
      const p = plan(cond(eq(lit(1), lit(1)), [loop(lit([]), "e", [display(lit(1))])]));
      expectOk(p, limits(100, 2));
      expectRule(p, "limit_depth", "steps[0].then[0].body[0]", limits(100, 1));
    });
  });

  describe("select (a comparison with no reader)", () => {
    const quotes = search("q");

    it.each([
      ["min by a field", select("s", ref("q"), "min", ["price"])],
      ["max by a nested field and index", select("s", ref("q", "hits"), "max", ["value", "fares", 0])],
      ["asc over a literal list, by the item itself", select("s", lit([3, 1, 2]), "asc", [])],
      [
        "desc with a filter",
        select("s", ref("q"), "desc", ["at"], [{ path: ["city"], equals: lit("Lyon") }]),
      ],
      [
        "a filter alone",
        select("s", ref("q"), "all", undefined, [{ path: ["city"], equals: ref("q", "c") }]),
      ],
    ])("accepts %s", (_, step) => {
      expectOk(plan(quotes, step, display(ref("s"))));
    });

    it.each([
      ["an order with no `by`", select("s", ref("q"), "min"), "select_by", "steps[1].by"],
      ['a `by` with pick "all"', select("s", ref("q"), "all", ["price"]), "select_by", "steps[1].by"],
      [
        "an unknown pick",
        { ...select("s", ref("q"), "min", ["p"]), pick: "cheapest" },
        "invalid_value",
        "steps[1].pick",
      ],
      [
        "a path given as an expression",
        { ...select("s", ref("q"), "min", ["p"]), by: ref("q") },
        "type",
        "steps[1].by",
      ],
      ["a negative index in `by`", select("s", ref("q"), "min", [-1]), "invalid_value", "steps[1].by[0]"],
      [
        "a `where` with no value",
        { ...select("s", ref("q"), "all"), where: [{ path: ["c"] }] },
        "required",
        "steps[1].where[0].equals",
      ],
      [
        "an unknown field",
        { ...select("s", ref("q"), "min", ["p"]), take: 1 },
        "unknown_field",
        "steps[1].take",
      ],
      ["a reserved out", select("out", ref("q"), "min", ["p"]), "name_reserved", "steps[1].out"],
      ["a list bound later", select("s", ref("z"), "min", ["p"]), "ref_undefined", "steps[1].over"],
      [
        "a filter value bound nowhere",
        select("s", ref("q"), "all", undefined, [{ path: ["c"], equals: ref("nope") }]),
        "ref_undefined",
        "steps[1].where[0].equals",
      ],
    ])("refuses %s", (_, step, rule, path) => {
      expectRule(plan(quotes, step as Json), rule as ValidationRule, path);
    });

    it("binds its out once, visible after it", () => {
      expectRule(plan(quotes, select("q", ref("q"), "min", ["p"])), "name_duplicate", "steps[1].out");
      expectRule(
        plan(display(ref("s")), quotes, select("s", ref("q"), "min", ["p"])),
        "ref_not_visible",
        "steps[0].value",
      );
    });
  });

  describe('providers: "all" (a fan-out over the apps serving an entry)', () => {
    const fanOut = (name: string, args: Record<string, Json>) =>
      plan({ ...tool("q", name, args), providers: "all" });
    const catalogMode = { trustedPlanner: true };

    it("is accepted on a reversible entry in catalog mode", () => {
      expectOk(fanOut("mail.search", { query: lit("invoice") }), catalogMode);
    });

    it("is refused on an irreversible entry: one action, never one per app", () => {
      const send = fanOut("mail.send", { to: lit("a@example.com"), body: lit("hi") });
      expectRule(send, "providers_refused", "steps[0].providers", catalogMode);
      // The same step asked of one app is a plan like any other.
      expectOk(plan(tool("q", "mail.send", { to: lit("a@example.com"), body: lit("hi") })), catalogMode);
    });

    it("is refused in apps mode, where a step names one app's functionality", () => {
      expectRule(fanOut("mail.search", { query: lit("invoice") }), "providers_refused", "steps[0].providers");
    });

    it("takes no other value, and is a field of tool steps only", () => {
      const some = plan({ ...tool("q", "mail.search", { query: lit("invoice") }), providers: "some" });
      expectRule(some, "invalid_value", "steps[0].providers", catalogMode);
      expectRule(plan({ ...display(lit(1)), providers: "all" }), "unknown_field", "steps[0].providers");
    });
  });

  it("never throws, even when the context itself misbehaves", () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error("boom");
        },
        has() {
          throw new Error("boom");
        },
        getOwnPropertyDescriptor() {
          throw new Error("boom");
        },
      },
    );
    const r = validatePlan(plan(search("s")), world({ catalog: hostile }));
    expect(r).toEqual({
      ok: false,
      code: "invalid_plan",
      message: "the plan failed validation",
      details: [{ path: "", rule: "internal", message: "the validator failed; the plan is refused" }],
    });
  });

  it("caps the number of errors reported", () => {
    const many = plan(...Array.from({ length: 150 }, () => display(ref("ghost"))));
    expect(errors(many, { policy: policy({ limits: { maxSteps: 1000 } }) })).toHaveLength(100);
  });
});
