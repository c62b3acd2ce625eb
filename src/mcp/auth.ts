import {
  type AuthorizationServerMetadata,
  ClientCredentialsProvider,
  type FetchLike,
  fetchToken,
  OAuthError,
  OAuthErrorCode,
} from "@modelcontextprotocol/client";
import type { McpAuth } from "../apps/manifest.ts";
import { readBounded } from "../bounded-body.ts";
import { failure, type Result } from "../result.ts";

/**
 * The Authorization header Lattice sends an MCP server. Static bearer tokens go as given; OAuth
 * client credentials are exchanged at the manifest's token URL through the client SDK (tokens
 * cached until shortly before they expire). Per-user OAuth tokens come from the user's spoke
 * (user-oauth.ts). Secrets arrive opened from the tenant, bound to the URL they were given for.
 */

/** The URL a write-only secret was given for: the only place it will ever be sent. */
export function secretBinding(auth: McpAuth, serverUrl: string): string | null {
  switch (auth.type) {
    case "none":
    case "user_token": // each user's own, in their spoke (personal-token.ts)
      return null;
    case "bearer":
      return serverUrl;
    case "client_credentials":
      // The token URL it is presented at and the server the tokens it gets are sent to.
      return `${auth.tokenUrl} ${serverUrl}`;
    case "oauth":
      if (auth.tokenUrl === undefined) return null; // not discovered yet: nothing to bind
      // A registered client's secret belongs to that client alone: a version that registers a new
      // client gets its own (the version still serving keeps its secret while the next is reviewed),
      // and a version that keeps its predecessor's client (kept-client.ts) finds the same one.
      return auth.discovered
        ? `${auth.tokenUrl} ${serverUrl} ${auth.clientId ?? ""}`
        : `${auth.tokenUrl} ${serverUrl}`;
  }
}

/** The write-only secret of an auth block as a developer sent it (the stored manifest holds none). */
export function writeOnlySecret(auth: McpAuth): string | undefined {
  if (auth.type === "bearer") return auth.token;
  if (auth.type === "client_credentials" || auth.type === "oauth") return auth.clientSecret;
  return undefined;
}

export function withoutSecret(auth: McpAuth): McpAuth {
  if (auth.type === "bearer") return { type: "bearer" };
  if (auth.type === "user_token") return { type: "user_token" };
  if (auth.type === "client_credentials" || auth.type === "oauth") {
    const { clientSecret: _secret, ...rest } = auth;
    return rest;
  }
  return auth;
}

/** Authorization server metadata from the manifest's own URLs: no discovery, so no server can redirect it. */
export function metadataOf(auth: {
  tokenUrl: string;
  authorizationUrl?: string;
  revocationUrl?: string | undefined;
  issuer?: string | undefined;
}): AuthorizationServerMetadata {
  return {
    issuer: auth.issuer ?? new URL(auth.tokenUrl).origin,
    authorization_endpoint: auth.authorizationUrl ?? auth.tokenUrl,
    token_endpoint: auth.tokenUrl,
    ...(auth.revocationUrl && { revocation_endpoint: auth.revocationUrl }),
    response_types_supported: ["code"],
    code_challenge_methods_supported: ["S256"],
  };
}

/**
 * Where an app's authorization server sends users back: one path per app (the API's public origin,
 * from the deployment), so an answer meant for one app cannot be passed off as another's.
 */
export function oauthCallbackUrl(env: { LATTICE_PUBLIC_URL?: string }, appId: string): string {
  const base = (env.LATTICE_PUBLIC_URL ?? "http://127.0.0.1:8787").replace(/\/+$/, "");
  return `${base}/v1/oauth/callback/${encodeURIComponent(appId)}`;
}

const CLIENT_REFUSALS = new Set<string>([OAuthErrorCode.InvalidClient, OAuthErrorCode.UnauthorizedClient]);

const cached = new Map<string, { token: string; until: number }>();
const EARLY_MS = 30_000;

export type AuthOutcome = Result<
  { headers: Record<string, string> },
  "no_credential" | "token_refused" | "client_refused",
  undefined
>;

/** Headers for the app-wide auth kinds; `oauth` and `user_token` (per user) are resolved by the spoke. */
export async function appAuthHeaders(
  auth: McpAuth,
  secret: string | null,
  authFetch: FetchLike,
): Promise<AuthOutcome> {
  if (auth.type === "none" || auth.type === "oauth" || auth.type === "user_token")
    return { ok: true, headers: {} };
  if (!secret) return failure("no_credential", "no credential is stored for this MCP server (send it again)");
  if (auth.type === "bearer") return { ok: true, headers: { Authorization: `Bearer ${secret}` } };
  const key = JSON.stringify([auth.tokenUrl, auth.clientId, auth.scope ?? "", secret]);
  const hit = cached.get(key);
  if (hit && hit.until > Date.now()) return { ok: true, headers: { Authorization: `Bearer ${hit.token}` } };
  try {
    const metadata = metadataOf(auth);
    const provider = new ClientCredentialsProvider({
      clientId: auth.clientId,
      clientSecret: secret,
      // The credentials belong to the manifest's authorization server, the one metadataOf names.
      expectedIssuer: metadata.issuer,
      ...(auth.scope !== undefined && { scope: auth.scope }),
    });
    const tokens = await fetchToken(provider, new URL(auth.tokenUrl).origin, {
      metadata,
      fetchFn: authFetch,
      ...(auth.scope !== undefined && { scope: auth.scope }),
    });
    const lifetime = (tokens.expires_in ?? 300) * 1000;
    cached.set(key, { token: tokens.access_token, until: Date.now() + Math.max(lifetime - EARLY_MS, 0) });
    if (cached.size > 100) cached.delete(cached.keys().next().value ?? "");
    return { ok: true, headers: { Authorization: `Bearer ${tokens.access_token}` } };
  } catch (error) {
    // RFC 6749 §5.2: the server does not know or accept the client itself (deleted, expired, its
    // secret no longer valid), as against a failure that the same client may overcome later.
    if (error instanceof OAuthError && CLIENT_REFUSALS.has(error.code))
      return failure("client_refused", "the authorization server refused the client");
    return failure("token_refused", "the token endpoint refused the client credentials");
  }
}

/** A client-credentials token the server refused (401): the next call fetches a fresh one. */
export function forgetAppToken(auth: McpAuth, secret: string | null): void {
  if (auth.type !== "client_credentials" || !secret) return;
  cached.delete(JSON.stringify([auth.tokenUrl, auth.clientId, auth.scope ?? "", secret]));
}

/** A fetch for token endpoints: the deadline, no redirects, bounded answers, only the manifest's URLs. */
export function tokenFetch(allowed: readonly string[], timeoutMs: number, maxBytes = 64 * 1024): FetchLike {
  const urls = new Set(allowed.map((u) => new URL(u).href));
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input)).href;
    if (!urls.has(url)) throw new Error("token request to a URL the manifest does not name");
    const signal = AbortSignal.timeout(timeoutMs);
    const response = await fetch(url, { ...init, redirect: "manual", signal });
    const text = await readBounded(response, maxBytes);
    if (text === "too_large") throw new Error("token answer too large");
    return new Response(text, { status: response.status, headers: response.headers });
  };
}
