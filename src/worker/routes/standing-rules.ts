import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import {
  describeRule,
  parseStandingRule,
  type StandingRule,
  StandingRuleInputSchema,
  standingRulesAllowed,
} from "../../policy/index.ts";
import type { AppEnv } from "../env.ts";
import { conflict, invalid, notFound } from "../errors.ts";
import { requireRole } from "../middleware/auth/index.ts";
import { authErrors, conflictError, jsonBody, jsonResponse, notFoundError } from "../schemas/common.ts";
import { UserIdSchema } from "../schemas/ids.ts";
import { tenantOf } from "../tenant.ts";
import { validationHook } from "../validation.ts";
import { artifactsOf } from "./artifacts.ts";

// The rule's own schema lives in src/policy (the trusted core); the document shows it as written there.
// A clone: zod gives a schema `.openapi` only when made after the extension, and src/policy may
// have been loaded first (its schema is then one without it).
const RuleInput = StandingRuleInputSchema.clone().openapi("StandingRuleInput", {
  description:
    'A rule the user sets once: one catalog entry and conditions on its arguments, e.g. {"tool": "mail.send", "when": {"to": {"from": "trusted"}}}',
});
const RuleView = z
  .object({
    id: z.string(),
    tool: z.string(),
    when: z.record(
      z.string(),
      z.object({
        from: z.literal("trusted").optional(),
        chosenFrom: z.array(z.string()).optional(),
        min: z.number().optional(),
        max: z.number().optional(),
        oneOf: z.array(z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
      }),
    ),
    origins: z.array(z.string()).nullable().openapi({
      description: "Whose data a covered call may carry; null: no other app's",
    }),
    expiresAt: z.string().nullable(),
    createdAt: z.string(),
    description: z.string().openapi({ description: "The rule's scope in words" }),
  })
  .openapi("StandingRule");
const UserParam = z.object({ userId: UserIdSchema });

const list = createRoute({
  method: "get",
  path: "/{userId}/standing-rules",
  tags: ["frontend"],
  summary: "The user's standing rules, each with its scope in words",
  security: [{ bearer: [] }],
  request: { params: UserParam },
  responses: { 200: jsonResponse(z.object({ rules: z.array(RuleView) }), "Rules"), ...authErrors },
});

const create = createRoute({
  method: "post",
  path: "/{userId}/standing-rules",
  tags: ["frontend"],
  summary:
    "Set a standing rule: calls to the entry that meet it, and already meet the policy, go without an irreversible or data-share consent",
  security: [{ bearer: [] }],
  request: { params: UserParam, ...jsonBody(RuleInput) },
  responses: {
    201: jsonResponse(z.object({ rule: RuleView }), "The rule, in force from the next call"),
    ...authErrors,
    ...conflictError,
  },
});

const revoke = createRoute({
  method: "delete",
  path: "/{userId}/standing-rules/{rid}",
  tags: ["frontend"],
  summary: "Revoke a standing rule; the next call it would have covered asks again",
  security: [{ bearer: [] }],
  request: { params: UserParam.extend({ rid: z.string().min(1).max(64) }) },
  responses: {
    200: jsonResponse(z.object({ revoked: z.literal(true) }), "Revoked"),
    ...authErrors,
    ...notFoundError,
  },
});

const view = (rule: StandingRule) => ({
  ...rule,
  origins: rule.origins ? [...rule.origins] : null,
  description: describeRule(rule),
});

const base = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
base.use(requireRole("frontend"));

export const standingRuleRoutes = base
  .openapi(list, async (c) => {
    const rules = await artifactsOf(c, c.req.valid("param").userId).standingRules();
    return c.json({ rules: rules.map(view) }, 200);
  })
  .openapi(create, async (c) => {
    const { userId } = c.req.valid("param");
    const artifacts = artifactsOf(c, userId);
    // The body as sent, not zod's output: a record drops a `__proto__` key without a word, which
    // would leave a rule broader than the one written. The core's parse refuses it.
    const parsed = parseStandingRule(await c.req.json());
    if (!parsed.ok) {
      throw invalid(
        "standing rule refused",
        parsed.details.map((i) => ({ field: i.path ? `body.${i.path}` : "body", message: i.message })),
      );
    }
    const rule = parsed.rule;
    const tenant = tenantOf(c);
    const [{ entries }, { policy }] = await Promise.all([tenant.catalog(), tenant.policy()]);
    const entry = entries.find((e) => e.name === rule.tool);
    const problems: Array<{ field: string; message: string }> = [];
    if (!entry) problems.push({ field: "body.tool", message: `no catalog entry is named ${rule.tool}` });
    else if (!standingRulesAllowed(policy, rule.tool))
      problems.push({
        field: "body.tool",
        message: `the tenant's policy takes no standing rules for ${rule.tool}`,
      });
    const properties =
      (entry?.request as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
    for (const arg of entry ? Object.keys(rule.when) : [])
      if (!Object.hasOwn(properties, arg))
        problems.push({ field: `body.when.${arg}`, message: `${rule.tool} has no argument ${arg}` });
    const names = new Set(entries.map((e) => e.name));
    for (const [arg, condition] of Object.entries(rule.when))
      for (const [i, tool] of (condition.chosenFrom ?? []).entries())
        if (!names.has(tool))
          problems.push({
            field: `body.when.${arg}.chosenFrom.${i}`,
            message: `no catalog entry is named ${tool}`,
          });
    const apps = new Set(["artifacts", ...entries.map((e) => e.name.split(".")[0]!)]);
    for (const [i, origin] of (rule.origins ?? []).entries())
      if (!apps.has(origin))
        problems.push({
          field: `body.origins.${i}`,
          message: `${origin} is neither an app of the catalog nor artifacts`,
        });
    if (rule.expiresAt && !(Date.parse(rule.expiresAt) > Date.now()))
      problems.push({ field: "body.expiresAt", message: "the expiry is in the past" });
    if (problems.length) throw invalid("standing rule refused", problems);
    const stored = await artifacts.addStandingRule(rule);
    if (!stored) throw conflict("the user keeps as many standing rules as allowed; revoke one first");
    return c.json({ rule: view(stored) }, 201);
  })
  .openapi(revoke, async (c) => {
    const { userId, rid } = c.req.valid("param");
    if (!(await artifactsOf(c, userId).revokeStandingRule(rid))) throw notFound("standing rule");
    return c.json({ revoked: true as const }, 200);
  });
