import { DurableObject } from "cloudflare:workers";
import * as z from "zod";
import type { ArtifactMetadata, Grant, NewArtifact } from "../../contracts.ts";
import { decode } from "../../decode.ts";
import {
  type Label,
  type StandingRule,
  type StandingRuleInput,
  StandingRuleInputSchema,
} from "../../policy/index.ts";
import { randomId } from "../crypto.ts";
import { EXPORT_MAX_BYTES, jsonBytes } from "../export-budget.ts";
import { migrate, type Sql, sqlTag } from "../sql.ts";

/** Each module's migrations, appended to at its end only (see migrate()). */
const MIGRATIONS = {
  artifacts: [
    `CREATE TABLE artifacts (
       id TEXT PRIMARY KEY, name TEXT NOT NULL, schema TEXT, intent TEXT NOT NULL, semantics TEXT NOT NULL,
       query TEXT NOT NULL, confidentiality TEXT NOT NULL, integrity TEXT NOT NULL, value TEXT NOT NULL,
       session_id TEXT NOT NULL, query_id TEXT NOT NULL, created_at TEXT NOT NULL)`,
    `CREATE INDEX artifacts_by_time ON artifacts (created_at, id)`,
    // Which planning mode made it: catalog-mode planners read only catalog-made metadata.
    `ALTER TABLE artifacts ADD COLUMN planned_in TEXT NOT NULL DEFAULT 'apps'`,
    // Who made the value (JSON list): a kept answer of an app stays the app's when read back (#43).
    `ALTER TABLE artifacts ADD COLUMN provenance TEXT`,
    // Whose data it carries (JSON list of apps): kept so saved data still names its sources (#43).
    `ALTER TABLE artifacts ADD COLUMN apps TEXT`,
  ],
  grants: [
    `CREATE TABLE grants (
       id TEXT PRIMARY KEY, kind TEXT NOT NULL, subject TEXT NOT NULL UNIQUE, choice TEXT,
       description TEXT NOT NULL, created_at TEXT NOT NULL)`,
  ],
  standingRules: [
    `CREATE TABLE standing_rules (
       id TEXT PRIMARY KEY, tool TEXT NOT NULL, conditions TEXT NOT NULL, expires_at TEXT,
       created_at TEXT NOT NULL)`,
    // Whose data a covered call may carry (JSON list); null: none but the target's own.
    `ALTER TABLE standing_rules ADD COLUMN origins TEXT`,
  ],
  // Which sessions and spokes hold this user's data (user data rights, #34): hubs and spokes are
  // named by ids no listing reaches, so an export or an erasure starts here.
  userObjects: [
    `CREATE TABLE user_objects (
       kind TEXT NOT NULL, id TEXT NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (kind, id))`,
    // How often each was noted: an erasure forgets a row only as it read it, so one noted again
    // meanwhile (its object made anew) stays. A counter, not a time: the clock need not advance
    // between two calls.
    `ALTER TABLE user_objects ADD COLUMN notes INTEGER NOT NULL DEFAULT 1`,
  ],
};

/** What the per-user index names: a session's hub, or a spoke by its app. */
export type UserObjectKind = "session" | "spoke";
/** An index row as an erasure read it: `forgetObjects` drops it only if it was not noted since. */
export type SeenObject = { kind: UserObjectKind; id: string; notes: number };

/** Artifacts an export carries at most (a user keeps few; values may be large): past it, `truncated`. */
export const EXPORT_MAX_ARTIFACTS = 1_000;
/** Rules one user may keep: each is read at every call that would ask. */
export const MAX_STANDING_RULES = 100;
/** The order the lists were spliced in before migrations were keyed. */
const LEGACY_LAYOUT = [
  ["artifacts", 2],
  ["grants", 1],
] as const;

/** Artifact values and schemas are whatever JSON the hub stored. */
const Json = z.unknown();

type Row = {
  id: string;
  name: string;
  schema: string | null;
  intent: string;
  semantics: string;
  query: string;
  confidentiality: string;
  integrity: string;
  value: string;
  session_id: string;
  query_id: string;
  created_at: string;
  planned_in: string;
  provenance: string | null;
  apps: string | null;
};

/**
 * One per (tenant, user): the user's labeled artifacts and standing grants. Values are sealed here: the only method that
 * returns one is `get`, which the interpreter's `retrieve` and the user's own API route call;
 * planners receive `listMetadata` only.
 */
export class ArtifactsDO extends DurableObject<Env> {
  private readonly sql: Sql;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = sqlTag(ctx.storage);
    migrate(ctx.storage, MIGRATIONS, LEGACY_LAYOUT);
  }

  /** A query's artifacts in one call (one round trip and one commit, however many it leaves). */
  putMany(artifacts: NewArtifact[]): ArtifactMetadata[] {
    return artifacts.map((a) => this.put(a));
  }

  put(artifact: NewArtifact): ArtifactMetadata {
    const { id } = artifact;
    const createdAt = new Date().toISOString();
    const schema = artifact.schema === undefined ? null : JSON.stringify(artifact.schema);
    const provenance = artifact.provenance === undefined ? null : JSON.stringify(artifact.provenance);
    const apps = artifact.apps === undefined ? null : JSON.stringify(artifact.apps);
    this
      .sql`INSERT OR IGNORE INTO artifacts (id, name, schema, intent, semantics, query, confidentiality, integrity,
      value, session_id, query_id, created_at, planned_in, provenance, apps) VALUES (${id}, ${artifact.name}, ${schema},
      ${artifact.intent}, ${artifact.semantics}, ${artifact.query}, ${artifact.label.confidentiality},
      ${artifact.label.integrity}, ${JSON.stringify(artifact.value)}, ${artifact.sessionId}, ${artifact.queryId},
      ${createdAt}, ${artifact.plannedIn}, ${provenance}, ${apps})`;
    return this.metadata(id)!;
  }

  /**
   * Newest first, paged by `before` (an artifact id's createdAt cursor is internal; ids suffice here).
   * Every column but the value: each planning reads a page, and values can be large.
   */
  listMetadata(limit = 100, offset = 0): ArtifactMetadata[] {
    return this
      .sql<MetadataRow>`SELECT id, name, schema, intent, semantics, query, confidentiality, integrity,
      session_id, query_id, created_at, planned_in FROM artifacts
      ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`.map(toMetadata);
  }

  count(): number {
    return this.sql<{ n: number }>`SELECT COUNT(*) AS n FROM artifacts`[0]!.n;
  }

  metadata(id: string): ArtifactMetadata | null {
    const row = this.sql<Row>`SELECT * FROM artifacts WHERE id = ${id}`[0];
    return row ? toMetadata(row) : null;
  }

  /**
   * What a query's `retrieve` binds: the value, its label, who made it and whose data it carries
   * (null: kept before that was recorded).
   */
  retrieve(
    id: string,
  ): { value: unknown; label: Label; provenance: string[] | null; apps: string[] | null } | null {
    const row = this.sql<Row>`SELECT * FROM artifacts WHERE id = ${id}`[0];
    if (!row) return null;
    return {
      value: decode(Json, row.value, `artifact ${id}`),
      label: { confidentiality: row.confidentiality, integrity: row.integrity },
      provenance:
        row.provenance === null
          ? null
          : decode(z.array(z.string()), row.provenance, `artifact ${id}'s provenance`),
      apps: row.apps === null ? null : decode(z.array(z.string()), row.apps, `artifact ${id}'s apps`),
    };
  }

  get(id: string): { metadata: ArtifactMetadata; value: unknown } | null {
    const row = this.sql<Row>`SELECT * FROM artifacts WHERE id = ${id}`[0];
    return row ? { metadata: toMetadata(row), value: decode(Json, row.value, `artifact ${id}`) } : null;
  }

  // --- permanent grants: read on every step that needs one, so a revocation applies at once ---

  grants(): Grant[] {
    return this.sql<GrantRow>`SELECT * FROM grants ORDER BY created_at, id`.map(toGrant);
  }

  findGrant(subject: string): Grant | null {
    const row = this.sql<GrantRow>`SELECT * FROM grants WHERE subject = ${subject}`[0];
    return row ? toGrant(row) : null;
  }

  addGrant(grant: { kind: string; subject: string; choice: string | null; description: string }): Grant {
    this
      .sql`INSERT OR REPLACE INTO grants VALUES (${randomId("gr")}, ${grant.kind}, ${grant.subject}, ${grant.choice},
             ${grant.description}, ${new Date().toISOString()})`;
    return this.findGrant(grant.subject)!;
  }

  revokeGrant(id: string): boolean {
    const existed = this.sql<{ id: string }>`SELECT id FROM grants WHERE id = ${id}`.length > 0;
    this.sql`DELETE FROM grants WHERE id = ${id}`;
    return existed;
  }

  // --- standing rules: read at every call that would ask, so a revocation applies at once ---

  standingRules(): StandingRule[] {
    return this.sql<RuleRow>`SELECT * FROM standing_rules ORDER BY created_at, id`.map(toRule);
  }

  /** Null when the user already keeps `MAX_STANDING_RULES`. */
  addStandingRule(rule: StandingRuleInput): StandingRule | null {
    const { n } = this.sql<{ n: number }>`SELECT COUNT(*) AS n FROM standing_rules`[0]!;
    if (n >= MAX_STANDING_RULES) return null;
    const id = randomId("sr");
    const origins = rule.origins ? JSON.stringify(rule.origins) : null;
    this.sql`INSERT INTO standing_rules (id, tool, conditions, expires_at, created_at, origins)
             VALUES (${id}, ${rule.tool}, ${JSON.stringify(rule.when)}, ${rule.expiresAt ?? null},
                     ${new Date().toISOString()}, ${origins})`;
    return toRule(this.sql<RuleRow>`SELECT * FROM standing_rules WHERE id = ${id}`[0]!);
  }

  revokeStandingRule(id: string): boolean {
    const existed = this.sql<{ id: string }>`SELECT id FROM standing_rules WHERE id = ${id}`.length > 0;
    this.sql`DELETE FROM standing_rules WHERE id = ${id}`;
    return existed;
  }

  delete(id: string): boolean {
    const existed = this.sql<{ id: string }>`SELECT id FROM artifacts WHERE id = ${id}`.length > 0;
    this.sql`DELETE FROM artifacts WHERE id = ${id}`;
    return existed;
  }

  // --- the user's index and data rights (#34): export and erasure start here ---

  /**
   * Records that a session or a spoke of this user exists: called once when a session is opened and
   * once when a spoke is first used (never on a query's steps). Idempotent.
   */
  noteObject(kind: UserObjectKind, id: string): void {
    // Noted again (an object erased and made anew while an erasure runs): counted, so that erasure's
    // `forgetObjects` keeps the row. The first noting's time stays: the export's order.
    this.sql`INSERT INTO user_objects (kind, id, created_at, notes)
             VALUES (${kind}, ${id}, ${new Date().toISOString()}, 1)
             ON CONFLICT (kind, id) DO UPDATE SET notes = notes + 1`;
  }

  /** The sessions and spoke apps this user has, oldest first; `seen`, the rows as read now. */
  userObjects(): { sessions: string[]; spokes: string[]; seen: SeenObject[] } {
    const rows = this.sql<{ kind: string; id: string; notes: number }>`
      SELECT kind, id, notes FROM user_objects ORDER BY created_at, id`;
    const seen = rows.flatMap((r): SeenObject[] =>
      r.kind === "session" || r.kind === "spoke" ? [{ kind: r.kind, id: r.id, notes: r.notes }] : [],
    );
    return {
      sessions: seen.filter((r) => r.kind === "session").map((r) => r.id),
      spokes: seen.filter((r) => r.kind === "spoke").map((r) => r.id),
      seen,
    };
  }

  /**
   * Everything held here, values as stored; artifacts newest first up to `EXPORT_MAX_ARTIFACTS`
   * and, with grants and rules, up to `maxBytes` serialized: the artifact that would pass it, and
   * every older one, is left out (`artifactsTruncated`).
   */
  exportData(maxBytes = EXPORT_MAX_BYTES): {
    artifacts: Array<{ metadata: ArtifactMetadata; value: unknown }>;
    artifactsTruncated: boolean;
    grants: Grant[];
    standingRules: StandingRule[];
    /** The serialized size of what is returned: the route spends the rest of its budget on sessions. */
    bytes: number;
  } {
    const grants = this.grants();
    const standingRules = this.standingRules();
    let bytes = jsonBytes(grants) + jsonBytes(standingRules);
    const rows = this.sql<Row>`SELECT * FROM artifacts ORDER BY created_at DESC, id DESC
      LIMIT ${EXPORT_MAX_ARTIFACTS + 1}`;
    const artifacts: Array<{ metadata: ArtifactMetadata; value: unknown }> = [];
    let artifactsTruncated = rows.length > EXPORT_MAX_ARTIFACTS;
    for (const row of rows.slice(0, EXPORT_MAX_ARTIFACTS)) {
      const metadata = toMetadata(row);
      const size = jsonBytes(metadata) + new TextEncoder().encode(row.value).length;
      if (bytes + size > maxBytes) {
        artifactsTruncated = true;
        break;
      }
      bytes += size;
      artifacts.push({ metadata, value: decode(Json, row.value, `artifact ${row.id}`) });
    }
    return { artifacts, artifactsTruncated, grants, standingRules, bytes };
  }

  /**
   * Clears the user's artifacts, grants and standing rules; the index stays until `forgetObjects`,
   * so an erasure interrupted before its sessions and spokes were cleared finds them again.
   */
  erase(): { artifacts: number; grants: number; standingRules: number } {
    return this.ctx.storage.transactionSync(() => {
      const count = (table: string) =>
        this.ctx.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).one().n;
      const counts = {
        artifacts: count("artifacts"),
        grants: count("grants"),
        standingRules: count("standing_rules"),
      };
      this.sql`DELETE FROM artifacts`;
      this.sql`DELETE FROM grants`;
      this.sql`DELETE FROM standing_rules`;
      return counts;
    });
  }

  /**
   * The rows an erasure read at its start dropped, once every object they named was erased; a row
   * noted since (its object made anew meanwhile, `notes` grown) stays, as does one the erasure never
   * read: those objects were not erased.
   */
  forgetObjects(seen: SeenObject[]): void {
    this.ctx.storage.transactionSync(() => {
      for (const { kind, id, notes } of seen)
        this.sql`DELETE FROM user_objects WHERE kind = ${kind} AND id = ${id} AND notes = ${notes}`;
    });
  }
}

type GrantRow = {
  id: string;
  kind: string;
  subject: string;
  choice: string | null;
  description: string;
  created_at: string;
};

function toGrant(row: GrantRow): Grant {
  const { created_at, ...rest } = row;
  return { ...rest, createdAt: created_at };
}

type RuleRow = {
  id: string;
  tool: string;
  conditions: string;
  expires_at: string | null;
  created_at: string;
  origins: string | null;
};

function toRule(row: RuleRow): StandingRule {
  return {
    id: row.id,
    tool: row.tool,
    when: decode(StandingRuleInputSchema.shape.when, row.conditions, `standing rule ${row.id}`),
    origins:
      row.origins === null
        ? null
        : (decode(StandingRuleInputSchema.shape.origins, row.origins, `standing rule ${row.id}`) ?? null),
    expiresAt: row.expires_at,
    createdAt: row.created_at,
  };
}

type MetadataRow = Omit<Row, "value">;

function toMetadata(row: MetadataRow): ArtifactMetadata {
  return {
    id: row.id,
    name: row.name,
    schema: row.schema === null ? null : decode(Json, row.schema, `the schema of artifact ${row.id}`),
    intent: row.intent,
    semantics: row.semantics,
    query: row.query,
    label: { confidentiality: row.confidentiality, integrity: row.integrity },
    sessionId: row.session_id,
    queryId: row.query_id,
    plannedIn: row.planned_in === "catalog" ? "catalog" : "apps",
    createdAt: row.created_at,
  };
}
