/** The world of the verifier's unit tests: the mail apps plus a bank, notes, the web and a vault. */
import {
  type PlanContext,
  type PolicyInput,
  type Verdict,
  validatePlan,
  verifyPlan,
} from "../../src/policy/index.ts";
import { type Json, lit, tool } from "./builders.ts";
import { ctx, EXAMPLE_POLICY_INPUT, entry, MAIL_CATALOG, policy } from "./fixtures.ts";

export const CATALOG = {
  ...MAIL_CATALOG,
  "bank.transfer": entry({ irreversible: true, clearance: "internal" }),
  "notes.save": entry({ irreversible: false, clearance: "internal" }),
  "web.fetch": entry({ output: { confidentiality: "public", integrity: "untrusted" }, clearance: "public" }),
  "vault.read": entry({
    output: { confidentiality: "secret", integrity: "untrusted" },
    clearance: "internal",
  }),
};

export const ARTIFACTS = {
  contact: { label: { confidentiality: "internal", integrity: "user" } },
  secret: { label: { confidentiality: "secret", integrity: "user" } },
  scraped: { label: { confidentiality: "public", integrity: "untrusted" } },
  stale: { label: { confidentiality: "classified", integrity: "gold" } },
};

export const QUERY = "Pay 1,250.00 to bob@example.com for invoice 4471 and email my accountant";

export function world(
  policyInput: PolicyInput = EXAMPLE_POLICY_INPUT,
  over: Partial<PlanContext> = {},
): PlanContext {
  return ctx({ policy: policy(policyInput), query: QUERY, catalog: CATALOG, artifacts: ARTIFACTS, ...over });
}

export function verify(input: unknown, c: PlanContext = world()): Verdict {
  const v = validatePlan(input, c);
  if (!v.ok) throw new Error(`test plan invalid: ${JSON.stringify(v.details)}`);
  return verifyPlan(v.plan, c);
}

/** The violations as "path argument rule" strings. */
export const brief = (v: Verdict) => v.violations.map((x) => `${x.path} ${x.argument ?? "(call)"} ${x.rule}`);

export const fetchWeb = (out: string) => tool(out, "web.fetch", { url: lit("bob@example.com") });
export const transfer = (out: string, to: Json, amount: Json = lit(1250)) =>
  tool(out, "bank.transfer", { to, amount });
