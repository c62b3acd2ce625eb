/**
 * The OAuth fixture's fixed data and the protocol pieces its endpoints share: the issuer and resource
 * URLs, the registered clients, RFC 6749 error answers, client authentication and PKCE. TEST DOUBLE.
 */

/** The fixture's base URL; tests route this host to the `oauth-fixture` worker. */
export const ISSUER = "http://127.0.0.1:8790";
/** The MCP endpoint: the protected resource (RFC 8707 `resource`, RFC 9728 `resource`). */
export const RESOURCE = `${ISSUER}/mcp`;
export const RESOURCE_METADATA_URL = `${ISSUER}/.well-known/oauth-protected-resource`;
/** The same MCP server at a second URL (/mcp-b), a resource of its own with its own metadata. */
export const SECOND_RESOURCE = `${ISSUER}/mcp-b`;
export const SECOND_RESOURCE_METADATA_URL = `${ISSUER}/.well-known/oauth-protected-resource/mcp-b`;
export const SCOPES_SUPPORTED = ["files:read"];
/** The scope granted when a request names none. */
export const DEFAULT_SCOPE = "files:read";
export const CODE_TTL_SECONDS = 300;
export const REFRESH_TTL_SECONDS = 30 * 24 * 3600;
export const DEFAULT_EXPIRES_IN = 3600;

export interface Client {
  id: string;
  /** null for a public client: it authenticates with no secret (`none`) and relies on PKCE. */
  secret: string | null;
  /** A dynamically registered client (RFC 7591): only these redirect URIs and grant types. */
  redirectUris?: string[];
  grantTypes?: string[];
}

/** Hard-coded registrations; redirect URIs are allowed by path so any host of the API under test works. */
export const CLIENTS: Record<string, Client> = {
  "lattice-client": { id: "lattice-client", secret: "lattice-client-secret" },
  "public-client": { id: "public-client", secret: null },
};
/** Lattice's callback is one path per app: /v1/oauth/callback/{appId}. */
export const CALLBACK_PATH = "/v1/oauth/callback";

/** An absolute http(s) URI without a fragment whose path is the callback path. */
export function redirectUriAllowed(uri: string): boolean {
  if (!URL.canParse(uri)) return false;
  const url = new URL(uri);
  return (
    (url.protocol === "http:" || url.protocol === "https:") &&
    !url.hash &&
    url.pathname.startsWith(`${CALLBACK_PATH}/`)
  );
}

/** A resource indicator names this MCP server (its URL, or the bare origin some clients send). */
export function resourceAllowed(resource: string): boolean {
  const trimmed = resource.replace(/\/+$/, "");
  return trimmed === RESOURCE || trimmed === SECOND_RESOURCE || trimmed === ISSUER;
}

/** RFC 6749 §3.3: space-separated tokens of printable ASCII, no `"` or `\`. */
export const scopeValid = (scope: string): boolean =>
  /^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/.test(scope);

/** What went wrong, as RFC 6749 §5.2 names it; the status is the HTTP answer. */
export interface OAuthFailure {
  status: number;
  error: string;
  error_description: string;
}

export const failure = (status: number, error: string, error_description: string): OAuthFailure => ({
  status,
  error,
  error_description,
});

export const isFailure = (value: unknown): value is OAuthFailure =>
  typeof value === "object" && value !== null && "error" in value && "status" in value;

/** Token endpoint answers must not be cached (RFC 6749 §5.1). */
const NO_STORE = { "Cache-Control": "no-store", Pragma: "no-cache" };

export function failureResponse(f: OAuthFailure): Response {
  const headers: Record<string, string> = { ...NO_STORE };
  // RFC 6749 §5.2: a 401 invalid_client names the scheme the client should have used.
  if (f.status === 401) headers["WWW-Authenticate"] = 'Basic realm="oauth-fixture"';
  return Response.json(
    { error: f.error, error_description: f.error_description },
    { status: f.status, headers },
  );
}

export const tokenResponse = (body: object): Response => Response.json(body, { headers: NO_STORE });

/** RFC 6749 §3.1/§3.2: a parameter sent more than once makes the request invalid. */
export function repeatedParam(params: URLSearchParams): string | null {
  for (const key of new Set(params.keys())) if (params.getAll(key).length > 1) return key;
  return null;
}

export type AuthMethod = "client_secret_basic" | "client_secret_post" | "none";

/** The client a token/revocation request authenticated as, and how. */
export interface AuthenticatedClient {
  client: Client;
  method: AuthMethod;
}

/** Basic credentials are form-encoded before base64 (RFC 6749 §2.3.1). */
function formDecode(value: string): string | null {
  try {
    return decodeURIComponent(value.replace(/\+/g, " "));
  } catch {
    return null;
  }
}

function basicCredentials(header: string): { id: string; secret: string } | null {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) return null;
  let decoded: string;
  try {
    decoded = atob(match[1]!);
  } catch {
    return null;
  }
  const colon = decoded.indexOf(":");
  if (colon < 0) return null;
  const id = formDecode(decoded.slice(0, colon));
  const secret = formDecode(decoded.slice(colon + 1));
  return id === null || secret === null ? null : { id, secret };
}

/**
 * Client authentication for /token and /revoke: exactly one of Basic, secret in the body, or (public
 * clients only) a bare client_id. Answers null when the request names no client at all.
 */
export function authenticateClient(
  request: Request,
  body: URLSearchParams,
  clients: Record<string, Client> = CLIENTS,
): AuthenticatedClient | OAuthFailure | null {
  const header = request.headers.get("Authorization");
  const bodyId = body.get("client_id");
  const bodySecret = body.get("client_secret");
  let claimed: { id: string; secret: string | null; method: AuthMethod };
  if (header) {
    const basic = basicCredentials(header);
    if (!basic) return failure(401, "invalid_client", "malformed Authorization header (expected Basic)");
    if (bodySecret !== null)
      return failure(
        400,
        "invalid_request",
        "use one client authentication method, not Basic and client_secret",
      );
    if (bodyId !== null && bodyId !== basic.id)
      return failure(400, "invalid_request", "client_id in the body differs from the Basic credentials");
    claimed = { ...basic, method: "client_secret_basic" };
  } else if (bodyId !== null) {
    claimed = { id: bodyId, secret: bodySecret, method: bodySecret === null ? "none" : "client_secret_post" };
  } else {
    return null;
  }
  const client = clients[claimed.id];
  if (!client) return failure(401, "invalid_client", `unknown client ${JSON.stringify(claimed.id)}`);
  if (client.secret === null) {
    if (claimed.method !== "none")
      return failure(401, "invalid_client", `${client.id} is a public client: send client_id and no secret`);
  } else if (claimed.secret !== client.secret) {
    return failure(
      401,
      "invalid_client",
      claimed.method === "none" ? `${client.id} must authenticate` : "wrong client secret",
    );
  }
  return { client, method: claimed.method };
}

const base64url = (bytes: Uint8Array): string =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

/** An unguessable opaque value (codes and tokens); the prefix only helps a human reading logs. */
export const randomToken = (prefix: string): string =>
  `${prefix}_${base64url(crypto.getRandomValues(new Uint8Array(32)))}`;

/** RFC 7636 §4.1: 43–128 unreserved characters (verifiers; S256 challenges are 43 of them). */
export const pkceValueValid = (value: string): boolean => /^[A-Za-z0-9._~-]{43,128}$/.test(value);

/** RFC 7636 §4.2, S256: BASE64URL(SHA256(ASCII(code_verifier))). */
export async function s256(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}
