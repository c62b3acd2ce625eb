/**
 * What passes between the demo Worker, its world Durable Object and the tests: call and reply
 * shapes, the state document, and the JSON helpers the world uses to answer.
 */
import { Validator, type Schema as ValidatorSchema } from "@cfworker/json-schema";
import type { Schema } from "./kit.ts";

/** An app call as the Worker received it; the body stays raw because the signature covers its bytes. */
export interface CallRequest {
  app: string;
  functionality: string;
  rawBody: string;
  /** The method and URL path as received: the signature covers them. */
  method: string;
  path: string;
  signature: string | null;
  idempotencyKey: string | null;
  callId: string | null;
}

/** What to answer. `delayMs` asks the Worker to hold the answer back (simulated latency). */
export interface Reply {
  status: number;
  contentType: string;
  body: string;
  delayMs?: number;
}

export interface LoggedCall {
  seq: number;
  at: string;
  app: string;
  functionality: string;
  idempotencyKey: string | null;
  callId: string | null;
  body: unknown;
  verified: boolean;
  /** Why the signature failed, when it did. */
  signatureError: string | null;
  /** A replay of an idempotency key already seen: answered from the record, nothing was done. */
  repeat: boolean;
  status: number;
}

/** `GET /w/{world}/_demo/state`. */
export interface WorldState {
  world: string;
  seededAt: string | null;
  secretsConfigured: string[];
  /** Each app's state, by app name (the shapes are the `…State` interfaces in apps/). */
  apps: Record<string, unknown>;
  calls: LoggedCall[];
}

export const jsonReply = (status: number, value: unknown): Reply => ({
  status,
  contentType: "application/json",
  body: JSON.stringify(value),
});
export const errorReply = (status: number, code: string, message: string): Reply =>
  jsonReply(status, { error: { code, message } });

const validators = new WeakMap<Schema, Validator>();
export function validateJson(schema: Schema, value: unknown): string | null {
  let v = validators.get(schema);
  if (!v) {
    v = new Validator(schema as ValidatorSchema, "2020-12", false);
    validators.set(schema, v);
  }
  const { valid, errors } = v.validate(value);
  if (valid) return null;
  // The deepest errors say what is wrong; the outer ones only repeat "properties failed".
  const specific = errors.filter((e) => e.keyword !== "properties" && e.keyword !== "allOf");
  return (specific.length > 0 ? specific : errors)
    .slice(0, 5)
    .map((e) => `${e.instanceLocation}: ${e.error}`)
    .join("; ");
}

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}
