/**
 * Standing rules: a user's answer given once ("mail to my contacts is fine", "pay my saved payees up
 * to 100 EUR") that the hub evaluates at each call instead of asking. A rule names one catalog entry
 * and conditions on its arguments. It stands in only for the user's "yes" to an `irreversible` or
 * `data_share` confirmation of a call whose values already meet the policy: it never endorses a
 * value, never covers a call with a flow violation, a warned assessment or a pc content steered.
 */
import * as z from "zod";
import { jsonShapeError } from "./json-guard.ts";
import type { Policy } from "./policy-schema.ts";

/** `<app>.<functionality>`, as the policy's tool keys (the catalog entry's name). */
const ToolKey = z
  .string()
  .max(128)
  .regex(/^[^.\s]+\.[^\s]+$/, 'a catalog entry\'s name, "<app>.<functionality>"');
const ArgName = z.string().min(1).max(64);
const Literal = z.union([z.string().max(512), z.number(), z.boolean(), z.null()]);

/** What one argument must be. Closed: a misspelt key is an error, never a condition ignored. */
export const RuleConditionSchema = z
  .strictObject({
    /** The value is a trusted one: the user's own words or a source of the user's integrity. */
    from: z.literal("trusted").optional(),
    /** A number at most this. */
    max: z.number().optional(),
    /** Exactly one of these literals (no case folding or trimming). */
    oneOf: z.array(Literal).min(1).max(64).optional(),
  })
  .refine((c) => c.from !== undefined || c.max !== undefined || c.oneOf !== undefined, {
    message: "a condition names at least one of from, max, oneOf",
  });

/** A rule as the user writes it. */
export const StandingRuleInputSchema = z.strictObject({
  tool: ToolKey,
  /** Argument name → condition; every condition must hold. Empty: the entry's every clean call. */
  when: z
    .record(ArgName, RuleConditionSchema)
    .refine((w) => Object.keys(w).length <= 16, { message: "at most 16 conditions" })
    .default(() => ({})),
  /** After this instant the rule covers nothing. */
  expiresAt: z.iso.datetime({ offset: true }).optional(),
});

/** A rule as sent over the API, before defaults (`when` may be left out). */
export type StandingRuleDraft = z.input<typeof StandingRuleInputSchema>;
export type RuleCondition = z.output<typeof RuleConditionSchema>;
export type StandingRuleInput = z.output<typeof StandingRuleInputSchema>;

/** A stored rule. */
export interface StandingRule {
  readonly id: string;
  readonly tool: string;
  readonly when: Readonly<Record<string, RuleCondition>>;
  readonly expiresAt: string | null;
  readonly createdAt: string;
}

export type ParseRuleResult =
  | { readonly ok: true; readonly rule: StandingRuleInput }
  | {
      readonly ok: false;
      readonly code: "invalid_rule";
      readonly message: string;
      readonly details: ReadonlyArray<{ path: string; message: string }>;
    };

const refused = (details: ReadonlyArray<{ path: string; message: string }>): ParseRuleResult => ({
  ok: false,
  code: "invalid_rule",
  message: "the standing rule is not valid",
  details,
});

/** Validates a rule as written; never throws. Paths are dotted (`when.to.max`). */
export function parseStandingRule(input: unknown): ParseRuleResult {
  // zod drops a `__proto__` key of a record without a word: refuse it (and non-JSON) first.
  const shape = jsonShapeError(input);
  if (shape) return refused([{ path: shape.path, message: shape.message }]);
  const r = StandingRuleInputSchema.safeParse(input);
  if (r.success) return { ok: true, rule: r.data };
  return refused(
    r.error.issues.flatMap((issue) => {
      const base = issue.path.map(String);
      if (issue.code === "unrecognized_keys")
        return issue.keys.map((k) => ({ path: [...base, k].join("."), message: `unknown field "${k}"` }));
      return [{ path: base.join("."), message: issue.message }];
    }),
  );
}

/** The call a rule is asked about, as the gate sees it just before asking the user. */
export interface RuleCall {
  readonly tool: string;
  /** The concrete argument values. */
  readonly args: Readonly<Record<string, unknown>>;
  /** Flow violations left at this call: a rule never stands in for an endorsement. */
  readonly violations: number;
  /** The hub's assessment of the consent it would ask: a rule answers only an `expected` one. */
  readonly verdict: "expected" | "warning";
  /** Whether the call runs was decided on data below the top integrity (the pc). */
  readonly steered: boolean;
}

/** Is this argument's value a trusted one? Injected: the hub knows where values came from. */
export type IsTrusted = (arg: string, value: unknown) => boolean;

/** Whether `rule` answers the user's "yes" for `call` at time `now` (epoch ms). */
export function ruleCovers(rule: StandingRule, call: RuleCall, isTrusted: IsTrusted, now: number): boolean {
  if (rule.tool !== call.tool) return false;
  if (call.violations > 0 || call.verdict !== "expected" || call.steered) return false;
  if (rule.expiresAt !== null && !(Date.parse(rule.expiresAt) > now)) return false;
  for (const [arg, condition] of Object.entries(rule.when)) {
    if (!Object.hasOwn(call.args, arg) || call.args[arg] === undefined) return false;
    if (!conditionHolds(arg, condition, call.args[arg], isTrusted)) return false;
  }
  return true;
}

function conditionHolds(arg: string, c: RuleCondition, value: unknown, isTrusted: IsTrusted): boolean {
  if (c.from === "trusted" && !isTrusted(arg, value)) return false;
  if (c.max !== undefined && !(typeof value === "number" && Number.isFinite(value) && value <= c.max))
    return false;
  if (c.oneOf !== undefined && !c.oneOf.some((literal) => literal === value)) return false;
  return true;
}

/** Whether the tenant lets users' standing rules answer for this catalog entry (default: yes). */
export function standingRulesAllowed(policy: Policy, tool: string): boolean {
  return !Object.hasOwn(policy.tools, tool) || policy.tools[tool]!.standingRules !== false;
}

/** The rule's scope in words, for the user who set it: `mail.send when "to" is a trusted value`. */
export function describeRule(rule: Pick<StandingRule, "tool" | "when" | "expiresAt">): string {
  const parts = Object.entries(rule.when).flatMap(([arg, c]) => {
    const name = JSON.stringify(arg);
    const said: string[] = [];
    if (c.from === "trusted") said.push(`${name} is a trusted value (your own words or a trusted source)`);
    if (c.max !== undefined) said.push(`${name} is a number at most ${c.max}`);
    if (c.oneOf !== undefined)
      said.push(`${name} is one of ${c.oneOf.map((v) => JSON.stringify(v)).join(", ")}`);
    return said;
  });
  const scope = parts.length
    ? `${rule.tool} when ${parts.join(" and ")}`
    : `${rule.tool}, whatever its arguments`;
  const until = rule.expiresAt ? `, until ${rule.expiresAt}` : "";
  return `${scope}${until}; only calls whose values already meet the policy, planned from the catalog`;
}
