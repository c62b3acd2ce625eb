import { DEFAULT_POLICY, type Policy, type PolicyIssue, parsePolicy } from "../../policy/index.ts";
import type { Sql } from "../sql.ts";

/** The tenant's policy document, versioned: every PUT is a new version; the newest applies. */

export const POLICY_MIGRATIONS = [
  `CREATE TABLE policies (version INTEGER PRIMARY KEY, document TEXT NOT NULL, created_at TEXT NOT NULL)`,
];

/** What GET shows in place of a model API key: keys are write-only. */
export const MASKED_KEY = "********";

const ROLES = ["default", "planner", "qllm", "spoke", "visor"] as const;

type ModelsDoc = Partial<Record<(typeof ROLES)[number], { apiKey?: string }>>;

export interface StoredPolicy {
  version: number;
  policy: Policy;
}

export function currentPolicy(sql: Sql): StoredPolicy {
  const row = sql<{ version: number; document: string }>`
    SELECT version, document FROM policies ORDER BY version DESC LIMIT 1`[0];
  if (!row) return { version: 0, policy: DEFAULT_POLICY };
  const parsed = parsePolicy(JSON.parse(row.document));
  // Stored documents were valid when written; a failure here means a schema change broke one.
  if (!parsed.ok) throw new Error(`stored policy v${row.version} no longer parses`);
  return { version: row.version, policy: parsed.policy };
}

/** The policy as an admin reads it back: every default filled in, API keys masked. */
export function maskedPolicy(stored: StoredPolicy): { version: number; policy: Record<string, unknown> } {
  const policy = structuredClone(stored.policy) as Policy & { models?: ModelsDoc };
  for (const role of ROLES) {
    const model = policy.models?.[role];
    if (model?.apiKey) model.apiKey = MASKED_KEY;
  }
  return { version: stored.version, policy };
}

export function putPolicy(
  sql: Sql,
  document: unknown,
): { ok: true; version: number } | { ok: false; issues: readonly PolicyIssue[] } {
  const previous = currentPolicy(sql).policy as Policy & { models?: ModelsDoc };
  const doc = structuredClone(document) as { models?: ModelsDoc } | null;
  // A document read back with GET carries masked keys: keep the stored key for that role.
  for (const role of ROLES) {
    const model = doc && typeof doc === "object" ? doc.models?.[role] : undefined;
    if (model?.apiKey === MASKED_KEY) {
      const kept = previous.models?.[role]?.apiKey;
      if (kept) model.apiKey = kept;
      else delete model.apiKey;
    }
  }
  const parsed = parsePolicy(doc);
  if (!parsed.ok) return parsed;
  const version = currentPolicy(sql).version + 1;
  sql`INSERT INTO policies (version, document, created_at) VALUES (${version}, ${JSON.stringify(doc)}, ${new Date().toISOString()})`;
  return { ok: true, version };
}
