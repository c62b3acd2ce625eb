/** Shared test fixtures: the DSL.md example's world, a tiny JSON Schema checker, plan builders. */
import type {
  Catalog,
  CatalogEntry,
  PlanContext,
  Policy,
  PolicyInput,
  SchemaChecker,
} from "../../src/policy/index.ts";
import { parsePolicy } from "../../src/policy/index.ts";
import type { Json } from "./builders.ts";

export function policy(input: PolicyInput = {}): Policy {
  const r = parsePolicy(input);
  if (!r.ok) throw new Error(`test policy invalid: ${JSON.stringify(r.details)}`);
  return r.policy;
}

const str = { type: "string" };

export function entry(partial: Partial<CatalogEntry> = {}): CatalogEntry {
  return {
    irreversible: false,
    output: { confidentiality: "internal", integrity: "untrusted" },
    clearance: "internal",
    requestSchema: { type: "object", properties: {}, additionalProperties: true },
    ...partial,
  };
}

/** The apps of DSL.md's example. The mail app is cleared for confidential mail. */
export const MAIL_CATALOG: Catalog = {
  "mail.search": entry({
    output: { confidentiality: "confidential", integrity: "untrusted" },
    clearance: "confidential",
    requestSchema: {
      type: "object",
      properties: { query: str },
      required: ["query"],
      additionalProperties: false,
    },
  }),
  "contacts.lookup": entry({
    output: { confidentiality: "internal", integrity: "untrusted" },
    requestSchema: {
      type: "object",
      properties: { name: str },
      required: ["name"],
      additionalProperties: false,
    },
  }),
  "mail.send": entry({
    irreversible: true,
    output: { confidentiality: "internal", integrity: "untrusted" },
    clearance: "confidential",
    requestSchema: {
      type: "object",
      properties: { to: str, body: { type: ["string", "number"] } },
      required: ["to", "body"],
      additionalProperties: false,
    },
  }),
};

/** The tenant policy DSL.md describes: mail.send.body relaxed, the contacts app's output trusted. */
export const EXAMPLE_POLICY_INPUT: PolicyInput = {
  tools: {
    "mail.send": { args: { body: { minIntegrity: "untrusted" } } },
    "contacts.lookup": { output: { integrity: "user" } },
  },
};

export const EXAMPLE_QUERY = "Email the total of this month's invoices to my accountant";

export const EXAMPLE_PLAN: { steps: Record<string, Json>[] } = {
  steps: [
    {
      kind: "tool",
      out: "inv",
      tool: "mail.search",
      args: { query: { lit: "invoice" } },
      intent: "find this month's invoices",
      semantics: "list of invoice emails",
    },
    {
      kind: "qllm",
      out: "sum",
      inputs: { emails: { ref: "inv" } },
      prompt: "Add up the invoice amounts in these emails.",
      schema: { type: "object", properties: { total: { type: "number" } }, required: ["total"] },
      intent: "total the invoices",
      semantics: "sum of this month's invoices",
    },
    {
      kind: "tool",
      out: "acct",
      tool: "contacts.lookup",
      args: { name: { lit: "accountant" } },
      intent: "find the accountant's address",
      semantics: "accountant contact",
    },
    {
      kind: "tool",
      out: "sent",
      tool: "mail.send",
      args: { to: { ref: "acct", path: ["email"] }, body: { ref: "sum", path: ["total"] } },
      intent: "send the total",
      semantics: "sent message receipt",
    },
    { kind: "display", value: { ref: "sum" } },
  ],
};

export function ctx(over: Partial<PlanContext> = {}): PlanContext {
  return {
    policy: policy(EXAMPLE_POLICY_INPUT),
    query: EXAMPLE_QUERY,
    catalog: MAIL_CATALOG,
    artifacts: {},
    ...over,
  };
}

/** A deep copy to mutate in a test. */
export function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/** DSL.md's example with one argument of one step replaced. */
export function exampleWith(step: number, arg: string, expr: Json): { steps: Record<string, Json>[] } {
  const p = clone(EXAMPLE_PLAN);
  const args = p.steps[step]?.args as Record<string, Json>;
  args[arg] = expr;
  return p;
}

function typeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

/**
 * A tiny JSON Schema checker for tests (type, required, properties, additionalProperties: false,
 * items, enum, const). The Worker injects a real one.
 */
export const tinyChecker: SchemaChecker = (schema, value) => {
  const errors: string[] = [];
  const visit = (s: unknown, v: unknown, at: string) => {
    if (typeof s !== "object" || s === null) return;
    const sc = s as Record<string, unknown>;
    if (sc.type !== undefined) {
      const types = Array.isArray(sc.type) ? sc.type : [sc.type];
      const t = typeOf(v);
      if (!types.includes(t) && !(t === "integer" && types.includes("number"))) {
        errors.push(`${at || "/"}: expected ${types.join("|")}, got ${t}`);
        return;
      }
    }
    if (Array.isArray(sc.enum) && !sc.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) {
      errors.push(`${at || "/"}: not one of the allowed values`);
    }
    if ("const" in sc && JSON.stringify(sc.const) !== JSON.stringify(v))
      errors.push(`${at || "/"}: wrong constant`);
    if (typeOf(v) === "object") {
      const obj = v as Record<string, unknown>;
      const props = (sc.properties ?? {}) as Record<string, unknown>;
      for (const r of Array.isArray(sc.required) ? sc.required : []) {
        if (!(r in obj)) errors.push(`${at || "/"}: missing ${String(r)}`);
      }
      for (const [k, child] of Object.entries(obj)) {
        if (k in props) visit(props[k], child, `${at}/${k}`);
        else if (sc.additionalProperties === false) errors.push(`${at || "/"}: unexpected ${k}`);
      }
    }
    if (Array.isArray(v) && sc.items !== undefined) {
      for (let i = 0; i < v.length; i++) visit(sc.items, v[i], `${at}/${i}`);
    }
  };
  visit(schema, value, "");
  return errors;
};
