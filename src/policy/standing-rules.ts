/**
 * Standing rules: a user's answer given once ("mail to the people I name is fine", "pay my saved
 * payees a bill names, up to 100 EUR") that the hub evaluates at each call instead of asking. A rule
 * names one catalog entry and conditions on its arguments. It stands in only for the user's "yes"
 * to an `irreversible` confirmation, or a `data_share` one from the origins it lists, of a call whose
 * values already meet the policy and that content did not write (unasked.ts): it never endorses a
 * value, never covers a call with a flow violation, a warned assessment or a pc content steered.
 */
import * as z from "zod";
import { jsonShapeError } from "./json-guard.ts";
import type { Policy } from "./policy-schema.ts";
import { type ArgStanding, unaskedRefusal } from "./unasked.ts";

/** `<app>.<functionality>`, as the policy's tool keys (the catalog entry's name). */
const ToolKey = z
  .string()
  .max(128)
  .regex(/^[^.\s]+\.[^\s]+$/, 'a catalog entry\'s name, "<app>.<functionality>"');
const ArgName = z.string().min(1).max(64);
const Literal = z.union([z.string().max(512), z.number(), z.boolean(), z.null()]);
/** An app's name as a call's origins carry it, or `artifacts` (the user's saved data). */
const OriginName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[^.\s,]+$/, "an app's name, or artifacts");

/** What one argument must be. Closed: a misspelt key is an error, never a condition ignored. */
export const RuleConditionSchema = z
  .strictObject({
    /**
     * The value is the user's own: its label has the top integrity (the user's words, or a source
     * of the user's integrity), or it exactly equals a value of the user's words.
     */
    from: z.literal("trusted").optional(),
    /**
     * As `from`, or a value these tools' `trustedValues` hold that content read in the query chose
     * among them ("any saved payee a bill names"): the user says that steer is acceptable here.
     */
    chosenFrom: z.array(ToolKey).min(1).max(16).optional(),
    /** A number at least this: a ceiling alone would cover −1,000,000. */
    min: z.number().optional(),
    /** A number at most this. */
    max: z.number().optional(),
    /** Exactly one of these literals (no case folding or trimming). */
    oneOf: z.array(Literal).min(1).max(64).optional(),
  })
  .refine((c) => Object.values(c).some((v) => v !== undefined), {
    message: "a condition names at least one of from, chosenFrom, min, max, oneOf",
  })
  .refine((c) => c.from === undefined || c.chosenFrom === undefined, {
    message: "from and chosenFrom together: chosenFrom already takes the user's own words",
  })
  .refine((c) => c.min === undefined || c.max === undefined || c.min <= c.max, {
    message: "min is above max: the condition could never hold",
  });

/** A rule as the user writes it. */
export const StandingRuleInputSchema = z.strictObject({
  tool: ToolKey,
  /** Argument name → condition; every condition must hold. Empty: the entry's every clean call. */
  when: z
    .record(ArgName, RuleConditionSchema)
    .refine((w) => Object.keys(w).length <= 16, { message: "at most 16 conditions" })
    .default(() => ({})),
  /**
   * Whose data a covered call may carry (apps' names, `artifacts` for the user's saved data).
   * Without it the rule covers only calls that carry no other app's data: it never answers a
   * `data_share` consent, and an irreversible call that would share data is still asked.
   */
  origins: z.array(OriginName).min(1).max(16).optional(),
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
  /** Whose data a covered call may carry; null: no app's but the target's own. */
  readonly origins: readonly string[] | null;
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
  /** How each argument's value stands (unasked.ts); an argument missing here is content's. */
  readonly standing: Readonly<Record<string, ArgStanding>>;
  /**
   * The arguments that are the call's destinations (declared, made one by the catalog's schema, or
   * given the destination role by the policy): one content chose among trusted values is covered
   * only where the rule's `chosenFrom` on it says so, never by a rule silent about it (#43).
   */
  readonly destinations: readonly string[];
  /** Other apps whose data the call carries, through its arguments or guards (`artifacts` too). */
  readonly origins: readonly string[];
  /** Flow violations left at this call: a rule never stands in for an endorsement. */
  readonly violations: number;
  /** The hub's assessment of the consent it would ask: a rule answers only an `expected` one. */
  readonly verdict: "expected" | "warning";
  /** Whether the call runs was decided on data below the top integrity (the pc). */
  readonly steered: boolean;
}

/** Whether `rule` answers the user's "yes" for `call` at time `now` (epoch ms). */
export function ruleCovers(rule: StandingRule, call: RuleCall, now: number): boolean {
  if (rule.tool !== call.tool) return false;
  if (call.violations > 0 || call.verdict !== "expected") return false;
  const standing: Record<string, ArgStanding> = {};
  for (const name of Object.keys(call.args))
    standing[name] = Object.hasOwn(call.standing, name) ? call.standing[name]! : CONTENT;
  if (unaskedRefusal(!call.steered, standing) !== null) return false;
  // A rule covers a destination content chose only in words the user saw (`chosenFrom`): "mail.send,
  // whatever its arguments" is not "to any contact what I read names".
  for (const arg of call.destinations) {
    const s = Object.hasOwn(standing, arg) ? standing[arg]! : null;
    if (s && !chosenAmong(s, []) && rule.when[arg]?.chosenFrom === undefined) return false;
  }
  if (!call.origins.every((o) => mayCarryOrigin(rule.origins, o))) return false;
  if (rule.expiresAt !== null && !(Date.parse(rule.expiresAt) > now)) return false;
  for (const [arg, condition] of Object.entries(rule.when)) {
    if (!Object.hasOwn(call.args, arg) || call.args[arg] === undefined) return false;
    if (!conditionHolds(condition, call.args[arg], standing[arg]!)) return false;
  }
  return true;
}

const CONTENT: ArgStanding = { by: "content" };

/**
 * Whether a rule's `origins` let a call carry data from `origin`. `artifacts` (the user's saved
 * data) covers each saved artifact, which a call names by id (`artifact:<id>`, for grants); the
 * apps a saved value was kept from are origins of their own, so "my saved data" never stretches
 * to the bank's data kept in it.
 */
function mayCarryOrigin(listed: readonly string[] | null, origin: string): boolean {
  if (!listed) return false;
  return listed.includes(origin) || (origin.startsWith("artifact:") && listed.includes("artifacts"));
}

function conditionHolds(c: RuleCondition, value: unknown, standing: ArgStanding): boolean {
  if (c.from === "trusted" && !chosenAmong(standing, [])) return false;
  if (c.chosenFrom !== undefined && !chosenAmong(standing, c.chosenFrom)) return false;
  const number = typeof value === "number" && Number.isFinite(value);
  if (c.min !== undefined && !(number && value >= c.min)) return false;
  if (c.max !== undefined && !(number && value <= c.max)) return false;
  if (c.oneOf !== undefined && !c.oneOf.some((literal) => literal === value)) return false;
  return true;
}

/**
 * The user's own value (top integrity, or matched to the user's words only), or one matched to the
 * trusted values of `tools`: content chose it among those, which the rule's words said.
 */
function chosenAmong(standing: ArgStanding, tools: readonly string[]): boolean {
  if (standing.by === "top") return true;
  if (standing.by !== "match" || standing.origins.length === 0) return false;
  return standing.origins.every((o) => o === "query" || (o !== null && tools.includes(o)));
}

/** Whether the tenant lets users' standing rules answer for this catalog entry (default: yes). */
export function standingRulesAllowed(policy: Policy, tool: string): boolean {
  return !Object.hasOwn(policy.tools, tool) || policy.tools[tool]!.standingRules !== false;
}

/** The rule's scope in words, for the user who set it: `mail.send when "to" is in your own words`. */
export function describeRule(rule: Pick<StandingRule, "tool" | "when" | "origins" | "expiresAt">): string {
  const parts = Object.entries(rule.when).flatMap(([arg, c]) => {
    const name = JSON.stringify(arg);
    const said: string[] = [];
    if (c.from === "trusted") said.push(`${name} is in your own words (or from a source you trust)`);
    if (c.chosenFrom !== undefined)
      said.push(
        `${name} is in your own words, or any value ${c.chosenFrom.join(" or ")} gave that what you read names`,
      );
    if (c.min !== undefined) said.push(`${name} is a number at least ${c.min}`);
    if (c.max !== undefined) said.push(`${name} is a number at most ${c.max}`);
    if (c.oneOf !== undefined)
      said.push(`${name} is one of ${c.oneOf.map((v) => JSON.stringify(v)).join(", ")}`);
    return said;
  });
  const scope = parts.length
    ? `${rule.tool} when ${parts.join(" and ")}`
    : `${rule.tool}, whatever its arguments`;
  const carrying = rule.origins?.length
    ? `, carrying data from ${rule.origins.join(", ")} at most`
    : ", carrying no other app's data";
  const until = rule.expiresAt ? `, until ${rule.expiresAt}` : "";
  return `${scope}${carrying}${until}; only calls whose values already meet the policy and whose words content did not write, planned from the catalog`;
}
