import * as z from "zod";
import { endpointProblem, type Mode } from "../../apps/egress.ts";
import { decode } from "../../decode.ts";
import { MODEL_ROLES } from "../../llm/types.ts";
import {
  DEFAULT_POLICY,
  isRecord,
  type ParsePolicyResult,
  type Policy,
  parseNewPolicy,
  parsePolicy,
  sanitisedDestinations,
} from "../../policy/index.ts";
import { failure } from "../../result.ts";
import type { Sql } from "../sql.ts";
import type { KeyBinding } from "./model-keys.ts";

const Document = z.record(z.string(), z.unknown());

/** The tenant's policy document, versioned: every PUT is a new version; the newest applies. */

export const POLICY_MIGRATIONS = [
  `CREATE TABLE policies (version INTEGER PRIMARY KEY, document TEXT NOT NULL, created_at TEXT NOT NULL)`,
];

/** What GET shows in place of a model API key: keys are write-only. */
export const MASKED_KEY = "********";

/** The model settings of a policy: one per model role, and the `default` they fall back to. */
export const MODEL_SETTINGS = ["default", ...MODEL_ROLES] as const;

export interface StoredPolicy {
  version: number;
  policy: Policy;
}

export function currentPolicy(sql: Sql): StoredPolicy {
  const row = sql<{ version: number; document: string }>`
    SELECT version, document FROM policies ORDER BY version DESC LIMIT 1`[0];
  if (!row) return { version: 0, policy: DEFAULT_POLICY };
  const document = decode(Document, row.document, `stored policy v${row.version}`);
  // A `visor` model role was once accepted and never used; a document that set one still reads.
  if (isRecord(document.models)) delete document.models.visor;
  // Written before planning modes existed, it meant what apps mode does: it does not move to catalog
  // mode (and lose its plans' names) on its own. Documents written since always name their mode.
  if (document.planning === undefined) document.planning = { mode: "apps" };
  // A key in a stored document predates sealed keys: it is moved out at start-up, and never used from here.
  if (isRecord(document.models)) {
    for (const model of Object.values(document.models)) if (isRecord(model)) delete model.apiKey;
  }
  const parsed = parsePolicy(document);
  // Stored documents were valid when written; a failure here means a schema change broke one.
  if (!parsed.ok) throw new Error(`stored policy v${row.version} no longer parses`);
  return { version: row.version, policy: parsed.policy };
}

/**
 * The policy in force, parsed once per version: spokes, planners and quotas ask for it on every
 * call, and versions never change once written, so a version number read is all a repeat costs.
 */
export class PolicyCache {
  private cached: StoredPolicy | null = null;

  get(sql: Sql): StoredPolicy {
    const version = sql<{ v: number | null }>`SELECT MAX(version) AS v FROM policies`[0]?.v ?? 0;
    if (this.cached?.version !== version) this.cached = currentPolicy(sql);
    return this.cached;
  }
}

/** The policy as an admin reads it back: every default filled in, a stored key shown masked. */
export function maskedPolicy(
  stored: StoredPolicy,
  keys: readonly KeyBinding[],
): { version: number; policy: Policy } {
  const models = { ...stored.policy.models };
  for (const role of MODEL_SETTINGS) {
    const model = models[role];
    if (model && keys.some((k) => k.setting === role)) models[role] = { ...model, apiKey: MASKED_KEY };
  }
  return { version: stored.version, policy: { ...stored.policy, models } };
}

/** What a PUT does to the stored keys: seal a new one for a setting, keep it, or drop it. */
export type KeyChange =
  | { setting: string; seal: { binding: KeyBinding; apiKey: string } }
  | { setting: string; keep: true }
  | { setting: string; drop: true };

export interface PreparedPolicy {
  ok: true;
  /** The document to store: no key in it, ever. */
  document: Record<string, unknown>;
  keys: KeyChange[];
}
type Refused = Extract<ParsePolicyResult, { ok: false }>;

/** Why a destination cannot be sanitised, for either PUT that would pair them. */
export function sanitisedDestinationMessage(arg: string): string {
  return `the catalog's request schema makes "${arg}" a destination (a link, an address, an account): the sanitiser vouches for words, never for a place; meet it with match or a lower minIntegrity on this argument`;
}

/**
 * Checks a policy document for a PUT. A masked key keeps the stored one only for the same provider
 * and base URL: pointing a setting elsewhere needs the key for there, so a stored key can never be
 * sent to a host the admin did not give it for. In production a base URL passes the egress guard.
 */
export function preparePolicy(
  document: unknown,
  ctx: {
    mode: Mode;
    stored: readonly KeyBinding[];
    canSeal: boolean;
    requestSchemas: ReadonlyMap<string, Readonly<Record<string, unknown>>>;
  },
): PreparedPolicy | Refused {
  // A new document: held to refusals a stored one is forgiven (their paths vouch for nothing).
  const parsed = parseNewPolicy(document);
  if (!parsed.ok) return parsed;
  const issues: Array<{ path: string; message: string }> = sanitisedDestinations(
    parsed.policy,
    ctx.requestSchemas,
  ).map(({ tool, arg }) => ({
    path: `tools.${tool}.args.${arg}.sanitise`,
    message: sanitisedDestinationMessage(arg),
  }));
  const keys: KeyChange[] = [];
  for (const setting of MODEL_SETTINGS) {
    const model = parsed.policy.models[setting];
    const at = `models.${setting}`;
    if (!model) {
      keys.push({ setting, drop: true });
      continue;
    }
    // Dev mode (`npm start`, tests) points models anywhere, a local fake included.
    if (model.baseURL && ctx.mode === "production") {
      const egress = endpointProblem(model.baseURL, ctx.mode);
      if (egress) issues.push({ path: `${at}.baseURL`, message: egress.replace(/^endpoint/, "baseURL") });
    }
    const binding = { setting, provider: model.provider, baseURL: model.baseURL ?? null };
    if (model.apiKey === undefined) keys.push({ setting, drop: true });
    else if (model.apiKey === MASKED_KEY) {
      const kept = ctx.stored.find((k) => k.setting === setting);
      if (!kept)
        issues.push({ path: `${at}.apiKey`, message: "no key is stored for this setting; send the key" });
      else if (kept.provider !== binding.provider || kept.baseURL !== binding.baseURL) {
        issues.push({
          path: `${at}.apiKey`,
          message:
            "a changed provider or baseURL needs a fresh apiKey: the stored key is only sent where it was given for",
        });
      } else keys.push({ setting, keep: true });
    } else if (!ctx.canSeal) {
      issues.push({
        path: `${at}.apiKey`,
        message: "this deployment cannot store model keys: its LATTICE_KEY_SECRET is not set",
      });
    } else keys.push({ setting, seal: { binding, apiKey: model.apiKey } });
  }
  if (issues.length) return failure("invalid_policy", "policy refused", issues);
  return { ok: true, document: withoutKeys(document, parsed.policy), keys };
}

/** Stores a prepared document as the next version (its keys are written by the caller, sealed). */
export function storePolicy(sql: Sql, prepared: PreparedPolicy): number {
  const version = currentPolicy(sql).version + 1;
  sql`INSERT INTO policies (version, document, created_at) VALUES (${version}, ${JSON.stringify(prepared.document)}, ${new Date().toISOString()})`;
  return version;
}

/** The document as written, less every API key, with the planning mode it resolved to made explicit. */
function withoutKeys(document: unknown, policy: Policy): Record<string, unknown> {
  const doc: Record<string, unknown> = isRecord(document) ? structuredClone(document) : {};
  if (isRecord(doc.models)) {
    for (const model of Object.values(doc.models)) if (isRecord(model)) delete model.apiKey;
  }
  return { ...doc, planning: policy.planning };
}

/**
 * Documents stored before keys were sealed carry them in plain text: the newest one's keys, to seal,
 * and every document scrubbed. Runs once per tenant object, before it serves.
 */
export function legacyKeys(sql: Sql): {
  /** Whether any stored document still holds a key (to scrub, even if none is to be sealed). */
  found: boolean;
  keys: Array<{ binding: KeyBinding; apiKey: string }>;
  scrub(): void;
} {
  const rows = sql<{ version: number; document: string }>`
    SELECT version, document FROM policies WHERE document LIKE '%"apiKey"%' ORDER BY version DESC`;
  // Only the version in force: a key an admin since removed must not come back from an older one.
  const current = sql<{ v: number | null }>`SELECT MAX(version) AS v FROM policies`[0]?.v ?? null;
  const row = rows[0]?.version === current ? rows[0] : undefined;
  const newest = row && decode(Document, row.document, `stored policy v${row.version}`);
  const keys: Array<{ binding: KeyBinding; apiKey: string }> = [];
  const models = newest && isRecord(newest.models) ? newest.models : {};
  for (const setting of MODEL_SETTINGS) {
    const m = models[setting];
    if (isRecord(m) && typeof m.apiKey === "string" && typeof m.provider === "string") {
      const baseURL = typeof m.baseURL === "string" ? m.baseURL : null;
      keys.push({ binding: { setting, provider: m.provider, baseURL }, apiKey: m.apiKey });
    }
  }
  return {
    found: rows.length > 0,
    keys,
    scrub() {
      for (const row of rows) {
        const doc = decode(Document, row.document, `stored policy v${row.version}`);
        if (isRecord(doc.models)) for (const m of Object.values(doc.models)) if (isRecord(m)) delete m.apiKey;
        sql`UPDATE policies SET document = ${JSON.stringify(doc)} WHERE version = ${row.version}`;
      }
    },
  };
}
