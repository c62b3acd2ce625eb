/**
 * The tenant policy document (API.md, "Admin"). `PUT /v1/admin/policy` replaces it whole; every field
 * left out takes the secure default of DESIGN.md. The store versions the document, so `version` is
 * not a field of it. Objects are strict: a misspelt key is an error, never a silently ignored rule.
 */
import * as z from "zod";
import { deepFreeze, valueAt } from "./json.ts";
import { jsonShapeError } from "./json-guard.ts";
import {
  DEFAULT_CONFIDENTIALITY,
  DEFAULT_INTEGRITY,
  type Lattices,
  makeLattices,
  totalOrderProblem,
} from "./lattice.ts";
import { ModelRoleSchema, modelRoleProblems } from "./model-role.ts";
import { formatPath, type PathSegment } from "./paths.ts";
import { authoredName, authoredPathMessage } from "./trusted-paths.ts";

const Level = z.string().min(1).max(64);
const LevelList = z.array(Level).min(1, "a lattice needs at least one level").max(32);

const ArgName = z.string().min(1);

/** `<app>.<functionality>`, the catalog's key for a functionality. */
const ToolKey = z.string().regex(/^[^.\s]+\.[^\s]+$/, 'a tool key has the form "<app>.<functionality>"');
const RoleName = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,63}$/, "a role name: lowercase letters, digits, - and _");

/** Headers Lattice reads for itself (credentials, the session, the body's framing) name nothing else. */
const RESERVED_HEADERS = [
  "authorization",
  "cookie",
  "host",
  "content-type",
  "content-length",
  "x-lattice-session",
];
const HeaderName = z
  .string()
  .regex(/^[A-Za-z0-9-]{1,64}$/, "a header name: letters, digits and -, at most 64")
  .refine((h) => !RESERVED_HEADERS.includes(h.toLowerCase()), "a header Lattice reads for itself");

/** What an argument is: where data goes, what the action does (amounts, flags, what to delete), or what it carries. */
export const ARGUMENT_ROLES = ["destination", "control", "payload"] as const;
export type ArgumentRole = (typeof ARGUMENT_ROLES)[number];

export const ArgumentPolicySchema = z.strictObject({
  maxConfidentiality: Level.optional(),
  minIntegrity: Level.optional(),
  role: z.enum(ARGUMENT_ROLES).optional(),
  /**
   * `trusted`: a value below the floor that exactly equals a trusted value of this query (the
   * user's words, a source at the floor, a tool output path listed in `trustedValues`) meets it.
   * Content may have steered which trusted value it is; the tenant accepts that for this argument.
   */
  match: z.literal("trusted").optional(),
  /**
   * Where a match may come from: `query` (the user's words) and tool keys whose `trustedValues`
   * hold it (a share's file id only from the file this plan created). Unset: any trusted value.
   */
  from: z
    .array(z.union([z.literal("query"), ToolKey]))
    .min(1)
    .max(16)
    .optional(),
  /**
   * `no-foreign-references`: a payload below the floor meets it when every link, domain, e-mail
   * address and IBAN written in it also occurs in a trusted value of this query.
   */
  sanitise: z.literal("no-foreign-references").optional(),
});

/** A path into a tool's answer: dotted property names, `[]` for every item of a list (`channels[]`, `users[].email`). */
const OutputPath = z
  .string()
  .max(200)
  .regex(/^(?:\[\]|[A-Za-z0-9_$-]+(?:\[\])?)(?:\.[A-Za-z0-9_$-]+(?:\[\])?)*$/, {
    message:
      'an output path: property names joined by ".", "[]" after a list (`channels[]`, `users[].email`)',
  });

export const ToolPolicySchema = z.strictObject({
  maxInputConfidentiality: Level.optional(),
  minInputIntegrity: Level.optional(),
  args: z.record(ArgName, ArgumentPolicySchema).optional(),
  /** Overrides the app-declared output label; a missing part keeps the default of that part. */
  output: z.strictObject({ confidentiality: Level.optional(), integrity: Level.optional() }).optional(),
  /**
   * Paths of the answer whose values are trusted as values (the workspace's channel list), at the
   * top integrity, whatever the answer's own label: an argument with `match: "trusted"` may take
   * one of them. The answer's text stays as untrusted as its label says.
   */
  trustedValues: z.array(OutputPath).max(32).optional(),
  /**
   * Whether this call runs may be decided on untrusted data (inside a condition or loop over
   * content): the call's own pc is not held to a floor. Every argument still meets its own, and a
   * user's standing rule never answers such a call's consent.
   */
  steerable: z.boolean().optional(),
  /** `false`: no user's standing rule answers for this entry; each call asks as it would. */
  standingRules: z.boolean().optional(),
});

export const PolicySchema = z
  .strictObject({
    lattices: z
      .strictObject({
        confidentiality: LevelList.default(() => [...DEFAULT_CONFIDENTIALITY]),
        integrity: LevelList.default(() => [...DEFAULT_INTEGRITY]),
      })
      .prefault({}),
    tools: z.record(ToolKey, ToolPolicySchema).prefault({}),
    /** Display accepts everything (top confidentiality) unless capped here. */
    display: z.strictObject({ maxConfidentiality: Level.optional() }).prefault({}),
    /** Browser origins that may read answers to user-token requests (CORS); API keys never get CORS. */
    cors: z
      .strictObject({
        origins: z
          .array(z.url())
          .max(32)
          .default(() => []),
      })
      .prefault({}),
    /**
     * Per-user OAuth of MCP apps: the frontend page the authorization server's callback sends the
     * browser on to (with `state` and `code`); that page completes the sign-in for its own user.
     */
    oauth: z.strictObject({ returnUrl: z.url({ protocol: /^https?$/ }).optional() }).prefault({}),
    onViolation: z.enum(["reject", "ask"]).default("reject"),
    selfCorrection: z.union([z.literal(0), z.literal(1)]).default(0),
    consent: z
      .strictObject({
        dataShare: z.boolean().default(true),
        timeoutSeconds: z.int().min(1).max(86_400).default(600),
        trustedApps: z.array(z.string().min(1)).default(() => []),
      })
      .prefault({}),
    limits: z
      .strictObject({
        maxSteps: z.int().min(1).max(100_000).default(100),
        maxDepth: z.int().min(0).max(32).default(4),
        /** Each model call ends (and fails its query) after this long. */
        modelTimeoutMs: z.int().min(100).max(300_000).default(30_000),
        /** Each app endpoint call ends (and fails its step) after this long. */
        appTimeoutMs: z.int().min(100).max(120_000).default(10_000),
        /** A loop over an app's answer ends the query past this many items (apps choose the size). */
        maxLoopIterations: z.int().min(1).max(10_000).default(100),
        /** Tool and q-llm calls one query may make in all. */
        maxCalls: z.int().min(1).max(10_000).default(200),
        /** Step runs one query may take (each loop pass counts, displays too): bounds one alarm's work. */
        maxWork: z.int().min(1).max(100_000).default(10_000),
      })
      .prefault({}),
    /** How long records are kept: the audit log, and a session's finished queries (their events, journal, display, consents). */
    retention: z
      .strictObject({
        auditDays: z.int().min(1).max(3650).default(90),
        queryDays: z.int().min(1).max(3650).default(30),
      })
      .prefault({}),
    /** Daily quotas (UTC days), counted exactly by the tenant's object. */
    quotas: z
      .strictObject({
        queriesPerDay: z.int().min(0).max(10_000_000).default(10_000),
        modelTokensPerDay: z.int().min(0).max(10_000_000_000).default(5_000_000),
        appCallsPerDay: z.int().min(0).max(100_000_000).default(100_000),
        /** Completions of the OpenAI-compatible `lattice-plain` model (when `plainModel` allows it). */
        plainCallsPerDay: z.int().min(0).max(10_000_000).default(1_000),
      })
      .prefault({}),
    /**
     * The OpenAI-compatible `lattice-plain` model: any frontend credential, a user token in a browser
     * included, gets the tenant's model with the frontend's own text and no plan, so it is off until
     * the admin turns it on (a chat frontend's title and tag completions).
     */
    plainModel: z.strictObject({ enabled: z.boolean().default(false) }).prefault({}),
    /**
     * Stock chat frontends at `/v1/openai` (Open WebUI, LibreChat): with a frontend key, the request
     * headers that name the user when the body has none, and the chat whose turns share one session;
     * the first one present counts. Only a frontend key (the chat product's server secret) may name a
     * user this way, as it may with `user`: a user token's own user always wins.
     */
    trustedHeaders: z
      .strictObject({
        user: z
          .array(HeaderName)
          .max(8)
          .default(() => ["X-OpenWebUI-User-Id"]),
        chat: z
          .array(HeaderName)
          .max(8)
          .default(() => ["X-OpenWebUI-Chat-Id"]),
        /**
         * The user's display name, shown on the consent link's page so a person sees it is theirs
         * (never used to name or check a user).
         */
        name: z
          .array(HeaderName)
          .max(8)
          .default(() => ["X-OpenWebUI-User-Name"]),
      })
      .prefault({}),
    models: z
      .strictObject({
        default: ModelRoleSchema.optional(),
        planner: ModelRoleSchema.optional(),
        qllm: ModelRoleSchema.optional(),
        spoke: ModelRoleSchema.optional(),
      })
      .prefault({}),
    /**
     * What the planner reads of apps: `catalog` (only the tenant's own catalog; the hub binds each
     * step to an app) or `apps` (reviewed app metadata, with literal provenance). At most
     * `earlierQueries` of the session's earlier queries, newest last.
     */
    planning: z
      .strictObject({
        mode: z.enum(["catalog", "apps"]).default("catalog"),
        earlierQueries: z.int().min(0).max(50).default(10),
      })
      .prefault({}),
    /** User roles (AgentVisor's Suitability): the catalog entries each may use; `*` is every entry. */
    roles: z
      .record(RoleName, z.strictObject({ entries: z.union([z.literal("*"), z.array(ToolKey).max(1000)]) }))
      .default(() => ({ member: { entries: "*" as const } })),
    /** The roles of a session whose frontend names none. */
    defaultRoles: z
      .array(RoleName)
      .min(1)
      .max(16)
      .default(() => ["member"]),
  })
  .superRefine((p, ctx) => {
    // Level names are only meaningful against the lattices of the same document.
    const confProblem = totalOrderProblem(p.lattices.confidentiality);
    const integProblem = totalOrderProblem(p.lattices.integrity);
    if (confProblem)
      ctx.addIssue({ code: "custom", path: ["lattices", "confidentiality"], message: confProblem });
    if (integProblem)
      ctx.addIssue({ code: "custom", path: ["lattices", "integrity"], message: integProblem });
    if (confProblem || integProblem) return;
    const check = (kind: "confidentiality" | "integrity", level: string | undefined, path: PathSegment[]) => {
      const levels = p.lattices[kind];
      if (level === undefined || levels.includes(level)) return;
      ctx.addIssue({
        code: "custom",
        path,
        message: `unknown ${kind} level "${level}"; the levels are ${levels.join(" < ")}`,
      });
    };
    for (const [tool, tp] of Object.entries(p.tools)) {
      check("confidentiality", tp.maxInputConfidentiality, ["tools", tool, "maxInputConfidentiality"]);
      check("integrity", tp.minInputIntegrity, ["tools", tool, "minInputIntegrity"]);
      check("confidentiality", tp.output?.confidentiality, ["tools", tool, "output", "confidentiality"]);
      check("integrity", tp.output?.integrity, ["tools", tool, "output", "integrity"]);
      for (const [arg, ap] of Object.entries(tp.args ?? {})) {
        check("confidentiality", ap.maxConfidentiality, ["tools", tool, "args", arg, "maxConfidentiality"]);
        check("integrity", ap.minIntegrity, ["tools", tool, "args", arg, "minIntegrity"]);
        // A remedy belongs to the role it is for: choosing among trusted values is for where data
        // goes or what an action does; a reference check is for what a message carries.
        if (ap.match && ap.role !== "destination" && ap.role !== "control")
          ctx.addIssue({
            code: "custom",
            path: ["tools", tool, "args", arg, "match"],
            message: 'match goes with role "destination" or "control"',
          });
        if (ap.from && !ap.match)
          ctx.addIssue({
            code: "custom",
            path: ["tools", tool, "args", arg, "from"],
            message: 'from goes with match "trusted"',
          });
        if (ap.sanitise && ap.role !== "payload")
          ctx.addIssue({
            code: "custom",
            path: ["tools", tool, "args", arg, "sanitise"],
            message: 'sanitise goes with role "payload"',
          });
      }
    }
    check("confidentiality", p.display.maxConfidentiality, ["display", "maxConfidentiality"]);
    for (const [setting, model] of Object.entries(p.models)) {
      for (const [field, message] of model ? modelRoleProblems(model) : [])
        ctx.addIssue({ code: "custom", path: ["models", setting, field], message });
    }
    for (const [i, role] of p.defaultRoles.entries()) {
      if (!Object.hasOwn(p.roles, role)) {
        ctx.addIssue({ code: "custom", path: ["defaultRoles", i], message: `no role "${role}" in roles` });
      }
    }
  });

/** A parsed policy, every default filled in. */
export type Policy = z.output<typeof PolicySchema>;
/** The document as an admin writes it (everything optional). */
export type PolicyInput = z.input<typeof PolicySchema>;
export type ToolPolicy = z.output<typeof ToolPolicySchema>;
export type ArgumentPolicy = z.output<typeof ArgumentPolicySchema>;
export type { ModelRole } from "./model-role.ts";

export interface PolicyIssue {
  readonly path: string;
  readonly message: string;
}

export type ParsePolicyResult =
  | { readonly ok: true; readonly policy: Policy }
  | {
      readonly ok: false;
      readonly code: "invalid_policy";
      readonly message: string;
      readonly details: readonly PolicyIssue[];
    };

/** Validates a policy document. Never throws. */
export function parsePolicy(json: unknown): ParsePolicyResult {
  // zod skips `__proto__` keys of records without a word; refuse them (and non-JSON) first.
  const shape = jsonShapeError(json);
  if (shape) return refused([{ path: shape.path, message: shape.message }]);
  const r = PolicySchema.safeParse(json);
  // Frozen: verdicts and the lattice cache assume a policy never changes after it was checked.
  if (r.success) return { ok: true, policy: deepFreeze(r.data) };
  const issues: PolicyIssue[] = [];
  for (const issue of r.error.issues) {
    const base = issue.path.filter((s): s is PathSegment => typeof s !== "symbol");
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys)
        issues.push({ path: formatPath([...base, key]), message: `unknown field "${key}"` });
    } else if (issue.code === "invalid_type" && valueAt(json, base) === undefined) {
      issues.push({ path: formatPath(base), message: `required field, expected ${issue.expected}` });
    } else {
      issues.push({ path: formatPath(base), message: issue.message });
    }
  }
  return refused(issues);
}

/**
 * Validates a document an admin writes (the policy PUT): what `parsePolicy` accepts, less
 * `trustedValues` paths ending in an author name (trusted-paths.ts). Stored documents are read with
 * `parsePolicy`, so one written before this refusal still loads; its refused paths vouch for
 * nothing at run time (`trustedLeaves`).
 */
export function parseNewPolicy(json: unknown): ParsePolicyResult {
  const parsed = parsePolicy(json);
  if (!parsed.ok) return parsed;
  const issues: PolicyIssue[] = [];
  for (const [tool, tp] of Object.entries(parsed.policy.tools)) {
    for (const [i, path] of (tp.trustedValues ?? []).entries()) {
      const name = authoredName(path);
      if (name)
        issues.push({
          path: formatPath(["tools", tool, "trustedValues", i]),
          message: authoredPathMessage(name),
        });
    }
  }
  return issues.length ? refused(issues) : parsed;
}

function refused(issues: readonly PolicyIssue[]): ParsePolicyResult {
  return { ok: false, code: "invalid_policy", message: "the policy document is not valid", details: issues };
}

/** The policy that applies where a tenant has written nothing. */
export const DEFAULT_POLICY: Policy = deepFreeze(PolicySchema.parse({}));

const latticeCache = new WeakMap<Policy, Lattices>();

/** The lattices of a parsed policy (cached per policy object). */
export function policyLattices(policy: Policy): Lattices {
  let l = latticeCache.get(policy);
  if (!l) {
    l = makeLattices(policy.lattices.confidentiality, policy.lattices.integrity);
    latticeCache.set(policy, l);
  }
  return l;
}
