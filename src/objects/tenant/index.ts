import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../worker/env.ts";
import { randomId, sha256Hex } from "../crypto.ts";
import { migrate, type Sql, sqlTag } from "../sql.ts";
import { type IssuedKey, type KeyInfo, newKeySecret, type Role } from "./keys.ts";

const MIGRATIONS = [
  `CREATE TABLE tenant (id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at TEXT NOT NULL)`,
  `CREATE TABLE keys (
     id TEXT PRIMARY KEY, role TEXT NOT NULL, label TEXT NOT NULL, hash TEXT NOT NULL UNIQUE,
     created_at TEXT NOT NULL, revoked_at TEXT)`,
];

type KeyRow = {
  id: string;
  role: string;
  label: string;
  created_at: string;
  revoked_at: string | null;
};

/** One per tenant: the tenant record and its API keys (hashed). Later: policy and the app registry. */
export class TenantDO extends DurableObject<Env> {
  private readonly sql: Sql;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = sqlTag(ctx.storage);
    migrate(ctx.storage, MIGRATIONS);
  }

  /** Creates the tenant and its first admin key; refuses a second call (the id is random, so this is a bug guard). */
  async create(
    tenantId: string,
    name: string,
  ): Promise<{ tenantId: string; name: string; adminKey: IssuedKey }> {
    if (this.info()) throw new Error("tenant already exists");
    this.sql`INSERT INTO tenant (id, name, created_at) VALUES (${tenantId}, ${name}, ${now()})`;
    const adminKey = await this.issueKey("admin", "first admin key");
    return { tenantId, name, adminKey };
  }

  info(): { id: string; name: string; createdAt: string } | null {
    const row = this.sql<{ id: string; name: string; created_at: string }>`SELECT * FROM tenant`[0];
    return row ? { id: row.id, name: row.name, createdAt: row.created_at } : null;
  }

  async issueKey(role: Role, label: string): Promise<IssuedKey> {
    const tenant = this.info();
    if (!tenant) throw new Error("tenant does not exist");
    const secret = newKeySecret(tenant.id);
    const id = randomId("key");
    const createdAt = now();
    this.sql`INSERT INTO keys (id, role, label, hash, created_at)
             VALUES (${id}, ${role}, ${label}, ${await sha256Hex(secret)}, ${createdAt})`;
    return { id, role, label, createdAt, revokedAt: null, secret };
  }

  listKeys(): KeyInfo[] {
    return this
      .sql<KeyRow>`SELECT id, role, label, created_at, revoked_at FROM keys ORDER BY created_at, id`.map(
      toKeyInfo,
    );
  }

  /** Revocation is immediate: authenticate() reads storage on every request (no cache). */
  revokeKey(id: string): KeyInfo | null {
    this.sql`UPDATE keys SET revoked_at = ${now()} WHERE id = ${id} AND revoked_at IS NULL`;
    const row = this
      .sql<KeyRow>`SELECT id, role, label, created_at, revoked_at FROM keys WHERE id = ${id}`[0];
    return row ? toKeyInfo(row) : null;
  }

  async authenticate(secret: string): Promise<{ keyId: string; role: Role } | null> {
    const hash = await sha256Hex(secret);
    const row = this.sql<{ id: string; role: string }>`
      SELECT id, role FROM keys WHERE hash = ${hash} AND revoked_at IS NULL`[0];
    return row ? { keyId: row.id, role: row.role as Role } : null;
  }
}

function toKeyInfo(row: KeyRow): KeyInfo {
  return {
    id: row.id,
    role: row.role as Role,
    label: row.label,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

const now = () => new Date().toISOString();
