/**
 * One demo world: every app's state, the apps' signing secrets, the idempotency records and the call
 * log, in one SQLite Durable Object. Tests and benchmark runs each take their own world by name.
 */
import { DurableObject } from "cloudflare:workers";
import { AppError, type CallContext, handlerOf, isRawReply } from "./kit.ts";
import {
  type CallRequest,
  errorReply,
  jsonReply,
  type LoggedCall,
  parseJson,
  type Reply,
  sha256Hex,
  validateJson,
  type WorldState,
} from "./protocol.ts";
import { appByName, WORLD_APP_NAMES } from "./registry.ts";
import { verifyLatticeSignature } from "./signature.ts";

type CallRow = {
  seq: number;
  at: string;
  app: string;
  functionality: string;
  idempotency_key: string | null;
  call_id: string | null;
  body: string;
  verified: number;
  signature_error: string | null;
  repeat: number;
  status: number;
};

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS app_state (app TEXT PRIMARY KEY, json TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS secrets (app TEXT PRIMARY KEY, secret TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS idempotency (
    app TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, reply TEXT,
    PRIMARY KEY (app, key));
  CREATE TABLE IF NOT EXISTS calls (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, app TEXT NOT NULL, functionality TEXT NOT NULL,
    idempotency_key TEXT, call_id TEXT, body TEXT NOT NULL, verified INTEGER NOT NULL,
    signature_error TEXT, repeat INTEGER NOT NULL, status INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS blobs (key TEXT PRIMARY KEY, json TEXT NOT NULL, version INTEGER NOT NULL);
`;

/** Bodies longer than this are logged truncated; longer replies are not kept for replay (rows cap at 2 MB). */
const MAX_LOGGED_BODY = 64 * 1024;
const MAX_STORED_REPLY = 1024 * 1024;

export class DemoWorld extends DurableObject {
  private readonly sql: SqlStorage;
  /** Whether this instance has already seeded (the check costs a transaction per call otherwise). */
  private seeded = false;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(SCHEMA);
  }

  /** Seeds any app that has no state yet: a new world, or an app added since the world was made. */
  private ensureSeeded(): void {
    if (this.seeded) return;
    this.ctx.storage.transactionSync(() => {
      this.sql.exec("INSERT OR IGNORE INTO meta (k, v) VALUES ('seeded_at', ?)", new Date().toISOString());
      for (const name of WORLD_APP_NAMES) {
        const seed = appByName(name)?.seed();
        this.sql.exec(
          "INSERT OR IGNORE INTO app_state (app, json) VALUES (?, ?)",
          name,
          JSON.stringify(seed),
        );
      }
    });
    this.seeded = true;
  }

  private log(
    req: CallRequest,
    at: Date,
    verified: boolean,
    sigError: string | null,
    repeat: boolean,
    status: number,
  ) {
    this.sql.exec(
      `INSERT INTO calls (at, app, functionality, idempotency_key, call_id, body, verified, signature_error, repeat, status)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      at.toISOString(),
      req.app,
      req.functionality,
      req.idempotencyKey,
      req.callId,
      req.rawBody.slice(0, MAX_LOGGED_BODY),
      verified ? 1 : 0,
      sigError,
      repeat ? 1 : 0,
      status,
    );
  }

  /** Handles one app call: signature, idempotency, request schema, then the app's handler. */
  async call(req: CallRequest): Promise<Reply> {
    this.ensureSeeded();
    const at = new Date();
    const app = appByName(req.app);
    if (!app) {
      this.log(req, at, false, null, false, 404);
      return errorReply(404, "unknown_app", `no app named ${JSON.stringify(req.app)}`);
    }

    const secret = this.sql
      .exec<{ secret: string }>("SELECT secret FROM secrets WHERE app = ?", req.app)
      .toArray()[0]?.secret;
    const check = secret
      ? await verifyLatticeSignature(secret, req.signature, {
          method: req.method,
          path: req.path,
          idempotencyKey: req.idempotencyKey,
          callId: req.callId,
          body: req.rawBody,
        })
      : { ok: false as const, reason: `no signing secret is configured for ${req.app} in this world` };
    if (!check.ok) {
      this.log(req, at, false, check.reason, false, 401);
      return errorReply(401, "bad_signature", check.reason);
    }

    const op = handlerOf(app, req.functionality);
    if (!op) {
      this.log(req, at, true, null, false, 404);
      return errorReply(404, "unknown_functionality", `${req.app} has no functionality ${req.functionality}`);
    }

    // Everything after this await runs synchronously, so no other call can slip in between the
    // idempotency check, the handler's read-modify-write of the state and the records of both.
    const fingerprint = await sha256Hex(`${req.functionality}\n${req.rawBody}`);

    if (req.idempotencyKey !== null) {
      const prior = this.sql
        .exec<{ fingerprint: string; reply: string | null }>(
          "SELECT fingerprint, reply FROM idempotency WHERE app = ? AND key = ?",
          req.app,
          req.idempotencyKey,
        )
        .toArray()[0];
      if (prior) {
        const reply =
          prior.fingerprint !== fingerprint
            ? errorReply(
                409,
                "idempotency_key_reused",
                "this idempotency key was used for a different request",
              )
            : prior.reply === null
              ? errorReply(409, "reply_not_kept", "the first reply to this key was too large to keep")
              : (JSON.parse(prior.reply) as Reply);
        this.log(req, at, true, null, true, reply.status);
        return reply;
      }
    }

    const parsed = parseJson(req.rawBody);
    const problem = parsed.ok ? validateJson(op.request, parsed.value) : "the body is not JSON";
    if (!parsed.ok || problem !== null) {
      // Like Stripe: a request rejected before the handler ran keeps no idempotent result.
      this.log(req, at, true, null, false, 400);
      return errorReply(400, "bad_request", problem ?? "the body is not JSON");
    }

    const row = this.sql.exec<{ json: string }>("SELECT json FROM app_state WHERE app = ?", req.app).one();
    const state: unknown = JSON.parse(row.json);
    const ctx: CallContext = { now: at, callId: req.callId };
    let reply: Reply;
    try {
      const result = op.run(state, parsed.value as Record<string, unknown>, ctx);
      reply = isRawReply(result)
        ? { status: result.status, contentType: result.contentType, body: result.body }
        : jsonReply(200, result);
      // Saved only when the handler finished: a throw leaves the world as it was.
      this.sql.exec("UPDATE app_state SET json = ? WHERE app = ?", JSON.stringify(state), req.app);
    } catch (err) {
      reply =
        err instanceof AppError
          ? errorReply(err.status, err.code, err.message)
          : errorReply(500, "internal", err instanceof Error ? err.message : String(err));
    }

    if (req.idempotencyKey !== null) {
      const kept = JSON.stringify(reply);
      this.sql.exec(
        "INSERT INTO idempotency (app, key, fingerprint, reply) VALUES (?, ?, ?, ?)",
        req.app,
        req.idempotencyKey,
        fingerprint,
        kept.length <= MAX_STORED_REPLY ? kept : null,
      );
    }
    this.log(req, at, true, null, false, reply.status);
    return op.delayMs ? { ...reply, delayMs: op.delayMs } : reply;
  }

  /**
   * The whole world, serialised: app states, which apps have a secret (never the secrets), the call
   * log. A JSON string because app states are free-form, which RPC's static types cannot express.
   */
  stateJson(world: string): string {
    this.ensureSeeded();
    const apps: Record<string, unknown> = {};
    for (const r of this.sql.exec<{ app: string; json: string }>(
      "SELECT app, json FROM app_state ORDER BY app",
    )) {
      apps[r.app] = JSON.parse(r.json);
    }
    const calls = this.sql
      .exec<CallRow>("SELECT * FROM calls ORDER BY seq")
      .toArray()
      .map(
        (r): LoggedCall => ({
          seq: r.seq,
          at: r.at,
          app: r.app,
          functionality: r.functionality,
          idempotencyKey: r.idempotency_key,
          callId: r.call_id,
          body: ((p) => (p.ok ? p.value : r.body))(parseJson(r.body)),
          verified: r.verified === 1,
          signatureError: r.signature_error,
          repeat: r.repeat === 1,
          status: r.status,
        }),
      );
    const seeded = this.sql.exec<{ v: string }>("SELECT v FROM meta WHERE k = 'seeded_at'").toArray()[0];
    const secrets = this.sql.exec<{ app: string }>("SELECT app FROM secrets ORDER BY app").toArray();
    const state: WorldState = {
      world,
      seededAt: seeded?.v ?? null,
      secretsConfigured: secrets.map((s) => s.app),
      apps,
      calls,
    };
    return JSON.stringify(state);
  }

  /**
   * A JSON blob kept under `key` (the MCP demo servers' state), with its version: 0 when there is none.
   * The MCP servers run in the Worker, so they update through `putBlob`'s compare-and-swap.
   */
  getBlob(key: string): { json: string | null; version: number } {
    const row = this.sql
      .exec<{ json: string; version: number }>("SELECT json, version FROM blobs WHERE key = ?", key)
      .toArray()[0];
    return row ? { json: row.json, version: row.version } : { json: null, version: 0 };
  }

  /** Stores `json` under `key` if the blob is still at `version`; false when someone wrote in between. */
  putBlob(key: string, json: string, version: number): boolean {
    const current = this.getBlob(key).version;
    if (current !== version) return false;
    this.sql.exec(
      "INSERT OR REPLACE INTO blobs (key, json, version) VALUES (?, ?, ?)",
      key,
      json,
      version + 1,
    );
    return true;
  }

  /** Back to the seed: app states, call log, idempotency records and blobs go; the secrets stay. */
  reset(): void {
    this.ctx.storage.transactionSync(() => {
      this.sql.exec("DELETE FROM app_state");
      this.sql.exec("DELETE FROM calls");
      this.sql.exec("DELETE FROM idempotency");
      this.sql.exec("DELETE FROM meta");
      this.sql.exec("DELETE FROM blobs");
    });
    this.seeded = false;
    this.ensureSeeded();
  }

  /**
   * Replaces one app's whole state (a scenario's own content: injected text planted, seeded text
   * replaced). The Worker has checked the app name and that the state is a JSON object; the shape is
   * the operator's responsibility, like the seed's.
   */
  setAppState(app: string, json: string): void {
    this.ensureSeeded();
    this.sql.exec("INSERT OR REPLACE INTO app_state (app, json) VALUES (?, ?)", app, json);
  }

  /** Stores (or replaces) signing secrets for the named apps; the Worker has checked the names. */
  setSecrets(secrets: Record<string, string>): string[] {
    this.ctx.storage.transactionSync(() => {
      for (const [app, secret] of Object.entries(secrets)) {
        this.sql.exec("INSERT OR REPLACE INTO secrets (app, secret) VALUES (?, ?)", app, secret);
      }
    });
    return this.sql
      .exec<{ app: string }>("SELECT app FROM secrets ORDER BY app")
      .toArray()
      .map((r) => r.app);
  }
}
