import * as z from "zod";
import { decode } from "../../decode.ts";
import { MODEL_ROLES } from "../../llm/types.ts";
import {
  DEFAULT_POLICY,
  isRecord,
  type ParsePolicyResult,
  type Policy,
  parsePolicy,
} from "../../policy/index.ts";
import type { Ok } from "../../result.ts";
import type { Sql } from "../sql.ts";

const Document = z.record(z.string(), z.unknown());

/** The tenant's policy document, versioned: every PUT is a new version; the newest applies. */

export const POLICY_MIGRATIONS = [
  `CREATE TABLE policies (version INTEGER PRIMARY KEY, document TEXT NOT NULL, created_at TEXT NOT NULL)`,
];

/** What GET shows in place of a model API key: keys are write-only. */
export const MASKED_KEY = "********";

/** The model settings of a policy: one per model role, and the `default` they fall back to. */
const MODEL_SETTINGS = ["default", ...MODEL_ROLES] as const;

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
  const parsed = parsePolicy(document);
  // Stored documents were valid when written; a failure here means a schema change broke one.
  if (!parsed.ok) throw new Error(`stored policy v${row.version} no longer parses`);
  return { version: row.version, policy: parsed.policy };
}

/** The policy as an admin reads it back: every default filled in, API keys masked. */
export function maskedPolicy(stored: StoredPolicy): { version: number; policy: Policy } {
  const models = { ...stored.policy.models };
  for (const role of MODEL_SETTINGS) {
    const model = models[role];
    if (model?.apiKey) models[role] = { ...model, apiKey: MASKED_KEY };
  }
  return { version: stored.version, policy: { ...stored.policy, models } };
}

export function putPolicy(
  sql: Sql,
  document: unknown,
): Ok<{ version: number }> | Extract<ParsePolicyResult, { ok: false }> {
  const previous = currentPolicy(sql).policy;
  const doc = structuredClone(document);
  // A document read back with GET carries masked keys: keep the stored key for that role.
  const models = isRecord(doc) && isRecord(doc.models) ? doc.models : {};
  for (const role of MODEL_SETTINGS) {
    const model = models[role];
    if (isRecord(model) && model.apiKey === MASKED_KEY) {
      const kept = previous.models[role]?.apiKey;
      if (kept) model.apiKey = kept;
      else delete model.apiKey;
    }
  }
  const parsed = parsePolicy(doc);
  if (!parsed.ok) return parsed;
  const version = currentPolicy(sql).version + 1;
  const stored = { ...(isRecord(doc) ? doc : {}), planning: parsed.policy.planning };
  sql`INSERT INTO policies (version, document, created_at) VALUES (${version}, ${JSON.stringify(stored)}, ${new Date().toISOString()})`;
  return { ok: true, version };
}
