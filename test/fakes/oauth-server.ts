/**
 * A TEST DOUBLE OAuth 2.1 authorization server plus an MCP resource server that accepts only its
 * tokens, as one Worker (auxiliary worker "oauth-fixture" in tests, reached at http://127.0.0.1:8790).
 * Never a real identity provider: the "user" approves instantly (GET /authorize?...&login_hint=alice,
 * or &deny=1 to refuse), clients and secrets are hard-coded, state lives in one Durable Object.
 *
 *   GET  /authorize                                   code flow, PKCE S256 required, 302 to redirect_uri
 *   POST /token                                       authorization_code | refresh_token (rotating) | client_credentials
 *   POST /revoke                                      RFC 7009; 200 for any token value (logs whose it was)
 *   POST /revoke-broken                               a revocation endpoint that fails: 500, nothing revoked
 *   GET  /.well-known/oauth-authorization-server      RFC 8414 metadata
 *   GET  /.well-known/oauth-protected-resource[/mcp]  RFC 9728 metadata for /mcp
 *   POST /register                                    RFC 7591 dynamic client registration (logs client_id, redirect_uris);
 *                                                     a client_name containing "expiring" gets a secret expiring in an hour
 *   GET|POST|DELETE /mcp                              MCP streamable HTTP; Bearer <access token> required
 *   GET|POST|DELETE /mcp-b                            the same MCP server at a second URL (its own resource)
 *   GET  /.well-known/oauth-protected-resource/mcp-b  RFC 9728 metadata for /mcp-b
 *   GET|POST /mcp-many-scopes                         401 pointing at metadata whose scope list is longer than a manifest takes
 *   GET|POST /mcp-elsewhere                           401 pointing at metadata about another resource (/mcp)
 *   GET|POST /mcp-moved                               401 pointing at metadata that redirects (302) to its document
 *   POST /_fixture/expires_in {"seconds": N, "subject"?: S}   access token lifetime from now on
 *   GET  /_fixture/log                                every non-fixture request served, oldest first
 *   POST /_fixture/revoke-all                         revokes every token
 *   POST /_fixture/forget-client {"client_id": C}     deletes a registered client (its tokens stay)
 *
 * Clients: confidential "lattice-client" / "lattice-client-secret" (client_secret_basic or _post),
 * public "public-client" (auth method none). Redirect URIs: any http(s) URI with path /v1/oauth/callback/<app>.
 */
import { serveMcp } from "./oauth/mcp.ts";
import {
  authenticateClient,
  CLIENTS,
  type Client,
  DEFAULT_SCOPE,
  failure,
  failureResponse,
  ISSUER,
  isFailure,
  type OAuthFailure,
  pkceValueValid,
  RESOURCE,
  randomToken,
  redirectUriAllowed,
  repeatedParam,
  resourceAllowed,
  SCOPES_SUPPORTED,
  SECOND_RESOURCE,
  SECOND_RESOURCE_METADATA_URL,
  s256,
  scopeValid,
  tokenResponse,
} from "./oauth/protocol.ts";
import type { Issued, LogEntry, OAuthFixtureState } from "./oauth/state.ts";

export { OAuthFixtureState } from "./oauth/state.ts";

interface Env {
  STATE: DurableObjectNamespace<OAuthFixtureState>;
}
type State = DurableObjectStub<OAuthFixtureState>;
type Handler = (request: Request, url: URL, state: State, entry: LogEntry) => Promise<Response> | Response;

const AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"];
const AS_METADATA = {
  issuer: ISSUER,
  authorization_endpoint: `${ISSUER}/authorize`,
  token_endpoint: `${ISSUER}/token`,
  revocation_endpoint: `${ISSUER}/revoke`,
  registration_endpoint: `${ISSUER}/register`,
  response_types_supported: ["code"],
  response_modes_supported: ["query"],
  grant_types_supported: ["authorization_code", "refresh_token", "client_credentials"],
  code_challenge_methods_supported: ["S256"],
  token_endpoint_auth_methods_supported: AUTH_METHODS,
  revocation_endpoint_auth_methods_supported: AUTH_METHODS,
  scopes_supported: SCOPES_SUPPORTED,
  authorization_response_iss_parameter_supported: true,
};
const RESOURCE_METADATA = {
  resource: RESOURCE,
  authorization_servers: [ISSUER],
  bearer_methods_supported: ["header"],
  scopes_supported: SCOPES_SUPPORTED,
  resource_name: "OAuth fixture MCP server (test double)",
};

const fail = (status: number, error: string, description: string) =>
  failureResponse(failure(status, error, description));

async function authorize(_request: Request, url: URL, state: State, entry: LogEntry): Promise<Response> {
  const q = url.searchParams;
  const repeated = repeatedParam(q);
  if (repeated) return fail(400, "invalid_request", `${repeated} sent more than once`);
  const clientId = q.get("client_id");
  entry.client_id = clientId;
  // Unknown client or redirect URI: never redirect (RFC 6749 §4.1.2.1), so answer here.
  const client = clientId ? (CLIENTS[clientId] ?? (await state.clients())[clientId]) : undefined;
  if (!clientId || !client) return fail(400, "invalid_request", "unknown client_id");
  const redirectUri = q.get("redirect_uri") ?? "";
  if (client.redirectUris && !client.redirectUris.includes(redirectUri))
    return fail(400, "invalid_request", "redirect_uri is not one the client registered");
  if (!redirectUriAllowed(redirectUri))
    return fail(
      400,
      "invalid_request",
      "redirect_uri must be an http(s) URL with path /v1/oauth/callback/<app>",
    );
  if (q.get("response_type") !== "code")
    return fail(400, "unsupported_response_type", "response_type must be code");
  const challenge = q.get("code_challenge");
  if (!challenge) return fail(400, "invalid_request", "code_challenge is required (PKCE)");
  if (q.get("code_challenge_method") !== "S256")
    return fail(400, "invalid_request", "code_challenge_method must be S256");
  if (!/^[A-Za-z0-9_-]{43}$/.test(challenge))
    return fail(400, "invalid_request", "an S256 code_challenge is 43 base64url characters");
  const scope = q.get("scope") || DEFAULT_SCOPE;
  if (!scopeValid(scope)) return fail(400, "invalid_scope", "malformed scope");
  const resource = q.get("resource");
  if (resource !== null && !resourceAllowed(resource))
    return fail(400, "invalid_target", `resource must be ${RESOURCE}`);
  // The "user" logs in and decides at once: who they are comes from login_hint.
  const subject = q.get("login_hint") || "fixture-user";
  entry.subject = subject;
  const target = new URL(redirectUri);
  if (q.get("deny") === "1") {
    target.searchParams.set("error", "access_denied");
    entry.error = "access_denied";
  } else {
    const code = await state.issueCode({ clientId, redirectUri, codeChallenge: challenge, scope, subject });
    target.searchParams.set("code", code);
  }
  const clientState = q.get("state");
  if (clientState !== null) target.searchParams.set("state", clientState);
  target.searchParams.set("iss", ISSUER); // RFC 9207: lets the client check who answered
  return new Response(null, { status: 302, headers: { Location: target.href } });
}

/** An x-www-form-urlencoded body with no repeated parameter. */
async function formBody(request: Request): Promise<URLSearchParams | OAuthFailure> {
  const type = (request.headers.get("Content-Type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded")
    return failure(400, "invalid_request", "send application/x-www-form-urlencoded");
  // Decoded by hand: workerd warns when .text() reads a body whose type is not text/*.
  const body = new URLSearchParams(new TextDecoder().decode(await request.arrayBuffer()));
  const repeated = repeatedParam(body);
  return repeated ? failure(400, "invalid_request", `${repeated} sent more than once`) : body;
}

async function codeGrant(
  body: URLSearchParams,
  client: Client,
  state: State,
): Promise<Issued | OAuthFailure> {
  const code = body.get("code");
  const redirectUri = body.get("redirect_uri");
  const verifier = body.get("code_verifier");
  if (!code) return failure(400, "invalid_request", "code is required");
  if (!redirectUri) return failure(400, "invalid_request", "redirect_uri is required");
  if (!verifier) return failure(400, "invalid_request", "code_verifier is required (PKCE)");
  if (!pkceValueValid(verifier))
    return failure(400, "invalid_request", "code_verifier must be 43-128 unreserved characters");
  return state.redeemCode(code, client.id, redirectUri, await s256(verifier));
}

async function refreshGrant(
  body: URLSearchParams,
  client: Client,
  state: State,
): Promise<Issued | OAuthFailure> {
  const refreshToken = body.get("refresh_token");
  if (!refreshToken) return failure(400, "invalid_request", "refresh_token is required");
  const scope = body.get("scope");
  if (scope !== null && !scopeValid(scope)) return failure(400, "invalid_scope", "malformed scope");
  return state.refresh(refreshToken, client.id, scope);
}

async function clientCredentialsGrant(
  body: URLSearchParams,
  client: Client,
  state: State,
): Promise<Issued | OAuthFailure> {
  if (client.secret === null)
    return failure(400, "unauthorized_client", "client_credentials needs a confidential client");
  if (client.grantTypes && !client.grantTypes.includes("client_credentials"))
    return failure(400, "unauthorized_client", "the client did not register client_credentials");
  const scope = body.get("scope") || DEFAULT_SCOPE;
  if (!scopeValid(scope)) return failure(400, "invalid_scope", "malformed scope");
  return state.clientCredentials(client.id, scope);
}

const GRANTS: Record<string, typeof codeGrant> = {
  authorization_code: codeGrant,
  refresh_token: refreshGrant,
  client_credentials: clientCredentialsGrant,
};

async function token(request: Request, _url: URL, state: State, entry: LogEntry): Promise<Response> {
  const body = await formBody(request);
  if (isFailure(body)) return failureResponse(body);
  const grantType = body.get("grant_type");
  entry.grant_type = grantType ?? undefined;
  entry.client_id = body.get("client_id");
  const auth = authenticateClient(request, body, { ...CLIENTS, ...(await state.clients()) });
  if (auth === null) return fail(401, "invalid_client", "no client authentication and no client_id");
  if (isFailure(auth)) return failureResponse(auth);
  entry.client_id = auth.client.id;
  entry.auth = auth.method;
  if (!grantType) return fail(400, "invalid_request", "grant_type is required");
  const grant = GRANTS[grantType];
  if (!grant) return fail(400, "unsupported_grant_type", `grant_type ${grantType} is not supported`);
  const resource = body.get("resource");
  if (resource !== null && !resourceAllowed(resource))
    return fail(400, "invalid_target", `resource must be ${RESOURCE}`);
  const issued = await grant(body, auth.client, state);
  if (isFailure(issued)) return failureResponse(issued);
  entry.subject = issued.subject;
  return tokenResponse(issued.body);
}

/**
 * RFC 7009. Credentials, when sent, must be right (a wrong secret is a caller bug worth failing on);
 * a request with none is still served, and the log shows auth "anonymous" so tests can catch it.
 */
async function revoke(request: Request, _url: URL, state: State, entry: LogEntry): Promise<Response> {
  const body = await formBody(request);
  if (isFailure(body)) return failureResponse(body);
  const auth = authenticateClient(request, body, { ...CLIENTS, ...(await state.clients()) });
  if (isFailure(auth)) return failureResponse(auth);
  entry.client_id = auth?.client.id ?? null;
  entry.auth = auth?.method ?? "anonymous";
  const value = body.get("token");
  if (!value) return fail(400, "invalid_request", "token is required");
  const revoked = await state.revoke(value, auth?.client.id ?? null);
  if (revoked) {
    entry.subject = revoked.subject;
    entry.token_kind = revoked.kind;
  }
  entry.content_type = request.headers.get("Content-Type");
  return new Response(null, { status: 200 });
}

/** RFC 7591 §3: any client that names allowed redirect URIs; a secret unless it asks for `none`. */
async function register(request: Request, _url: URL, state: State, entry: LogEntry): Promise<Response> {
  const body = (await request.json().catch(() => null)) as Record<string, unknown> | null;
  const uris = body?.redirect_uris;
  if (
    !Array.isArray(uris) ||
    uris.length === 0 ||
    !uris.every((u) => typeof u === "string" && redirectUriAllowed(u))
  )
    return Response.json(
      {
        error: "invalid_redirect_uri",
        error_description: "redirect_uris: http(s) URIs with path /v1/oauth/callback/<app>",
      },
      { status: 400 },
    );
  const method =
    typeof body?.token_endpoint_auth_method === "string"
      ? body.token_endpoint_auth_method
      : "client_secret_basic";
  if (!AUTH_METHODS.includes(method))
    return Response.json(
      { error: "invalid_client_metadata", error_description: "unknown auth method" },
      { status: 400 },
    );
  const grantTypes = Array.isArray(body?.grant_types)
    ? (body.grant_types as string[])
    : ["authorization_code"];
  const client = await state.registerClient({
    secret: method === "none" ? null : randomToken("fxsecret"),
    redirectUris: uris as string[],
    grantTypes,
  });
  entry.client_id = client.id;
  // RFC 7591 §3.2.1: 0 is "never"; a test names its app "expiring…" for a secret that soon expires
  // (only announced: the fixture keeps accepting it).
  const expiring = typeof body?.client_name === "string" && body.client_name.includes("expiring");
  const expiresAt = expiring ? Math.floor(Date.now() / 1000) + 3600 : 0;
  // Which app a registration was for (its callback URL names it): tests count their own.
  entry.redirect_uris = uris;
  return Response.json(
    {
      client_id: client.id,
      ...(client.secret !== null && { client_secret: client.secret, client_secret_expires_at: expiresAt }),
      client_id_issued_at: Math.floor(Date.now() / 1000),
      redirect_uris: uris,
      grant_types: grantTypes,
      response_types: ["code"],
      token_endpoint_auth_method: method,
      ...(typeof body?.client_name === "string" && { client_name: body.client_name }),
      ...(typeof body?.scope === "string" && { scope: body.scope }),
    },
    { status: 201, headers: { "Cache-Control": "no-store" } },
  );
}

/** A protected resource whose challenge points at `metadata` (the discovery controls). */
const challenging = (metadata: string) => () =>
  Response.json(
    { error: "unauthorized" },
    { status: 401, headers: { "WWW-Authenticate": `Bearer resource_metadata="${metadata}"` } },
  );

async function setExpiresIn(request: Request, _url: URL, state: State): Promise<Response> {
  const body = (await request.json().catch(() => null)) as { seconds?: unknown; subject?: unknown } | null;
  const seconds = body?.seconds;
  const subject = body?.subject ?? null;
  if (
    typeof seconds !== "number" ||
    !Number.isInteger(seconds) ||
    seconds < 0 ||
    !(subject === null || typeof subject === "string")
  )
    return Response.json(
      { error: 'expected {"seconds": <integer >= 0>, "subject"?: string}' },
      { status: 400 },
    );
  await state.setExpiresIn(seconds, subject);
  return Response.json({ ok: true, seconds, subject });
}

const ROUTES: Record<string, Record<string, Handler>> = {
  "/authorize": { GET: authorize },
  "/token": { POST: token },
  "/revoke": { POST: revoke },
  "/revoke-broken": {
    // The body is read first: a response sent before it is consumed breaks the caller's stream.
    POST: async (request) => {
      await request.arrayBuffer();
      return fail(500, "server_error", "this revocation endpoint is down (test double)");
    },
  },
  "/.well-known/oauth-authorization-server": { GET: () => Response.json(AS_METADATA) },
  "/.well-known/oauth-protected-resource": { GET: () => Response.json(RESOURCE_METADATA) },
  // RFC 9728 §3.1 inserts the resource's path after the well-known name; serve that form too.
  "/.well-known/oauth-protected-resource/mcp": { GET: () => Response.json(RESOURCE_METADATA) },
  // A second server taking the same tokens: where a token bound to /mcp must never go. It names its
  // own metadata, so an app can also be moved to it (a new resource: a new client, a new sign-in).
  "/mcp-b": Object.fromEntries(
    ["GET", "POST", "DELETE"].map((m) => [
      m,
      (request: Request, _url: URL, state: State, entry: LogEntry) =>
        serveMcp(request, (t) => state.verifyAccess(t), entry, {
          resource: SECOND_RESOURCE,
          metadataUrl: SECOND_RESOURCE_METADATA_URL,
        }),
    ]),
  ),
  "/.well-known/oauth-protected-resource/mcp-b": {
    GET: () => Response.json({ ...RESOURCE_METADATA, resource: SECOND_RESOURCE }),
  },
  "/mcp": Object.fromEntries(
    ["GET", "POST", "DELETE"].map((m) => [
      m,
      (request: Request, _url: URL, state: State, entry: LogEntry) =>
        serveMcp(request, (t) => state.verifyAccess(t), entry),
    ]),
  ),
  "/register": { POST: register },
  // Discovery controls: metadata about another resource; metadata behind a redirect.
  "/mcp-elsewhere": {
    GET: challenging(`${ISSUER}/.well-known/oauth-protected-resource/mcp-elsewhere`),
    POST: challenging(`${ISSUER}/.well-known/oauth-protected-resource/mcp-elsewhere`),
  },
  "/.well-known/oauth-protected-resource/mcp-elsewhere": { GET: () => Response.json(RESOURCE_METADATA) },
  "/mcp-many-scopes": {
    GET: challenging(`${ISSUER}/.well-known/oauth-protected-resource/mcp-many-scopes`),
    POST: challenging(`${ISSUER}/.well-known/oauth-protected-resource/mcp-many-scopes`),
  },
  "/.well-known/oauth-protected-resource/mcp-many-scopes": {
    GET: () =>
      Response.json({
        ...RESOURCE_METADATA,
        resource: `${ISSUER}/mcp-many-scopes`,
        scopes_supported: Array.from({ length: 120 }, (_, i) => `files.scope-number-${i}`),
      }),
  },
  "/mcp-moved": {
    GET: challenging(`${ISSUER}/.well-known/oauth-protected-resource/mcp-moved`),
    POST: challenging(`${ISSUER}/.well-known/oauth-protected-resource/mcp-moved`),
  },
  "/.well-known/oauth-protected-resource/mcp-moved": {
    GET: () =>
      new Response(null, {
        status: 302,
        headers: { Location: `${ISSUER}/.well-known/oauth-protected-resource/mcp-moved/document` },
      }),
  },
  "/.well-known/oauth-protected-resource/mcp-moved/document": {
    GET: () => Response.json({ ...RESOURCE_METADATA, resource: `${ISSUER}/mcp-moved` }),
  },
  "/_fixture/expires_in": { POST: setExpiresIn },
  "/_fixture/log": { GET: async (_r, _u, state) => Response.json(await state.entries()) },
  "/_fixture/forget-client": {
    POST: async (request, _u, state) => {
      const body = (await request.json().catch(() => null)) as { client_id?: unknown } | null;
      if (typeof body?.client_id !== "string")
        return Response.json({ error: 'expected {"client_id": <string>}' }, { status: 400 });
      return Response.json({ ok: true, forgotten: await state.forgetClient(body.client_id) });
    },
  },
  "/_fixture/revoke-all": {
    POST: async (_r, _u, state) => Response.json({ ok: true, revoked: await state.revokeAll() }),
  },
};

function route(request: Request, url: URL, state: State, entry: LogEntry): Promise<Response> | Response {
  const methods = ROUTES[url.pathname];
  if (!methods)
    return Response.json({ error: "not_found", error_description: url.pathname }, { status: 404 });
  const handler = methods[request.method];
  if (!handler)
    return Response.json(
      { error: "method_not_allowed", error_description: `${request.method} ${url.pathname}` },
      { status: 405, headers: { Allow: Object.keys(methods).join(", ") } },
    );
  return handler(request, url, state, entry);
}

/** The OAuth `error` code of a failed answer, for the log (JSON-RPC errors carry objects: skipped). */
async function errorCode(response: Response): Promise<string | undefined> {
  if (response.status < 400 || !response.headers.get("Content-Type")?.includes("json")) return undefined;
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { error?: unknown } | null;
  return typeof body?.error === "string" ? body.error : undefined;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const state = env.STATE.getByName("oauth-fixture");
    const entry: LogEntry = { method: request.method, path: url.pathname };
    let response: Response;
    try {
      response = await route(request, url, state, entry);
    } catch (err) {
      // Only a bug in this fixture lands here: every protocol failure has its own answer above.
      console.error("oauth-fixture bug:", err);
      response = Response.json({ error: "server_error", error_description: String(err) }, { status: 500 });
    }
    if (url.pathname.startsWith("/_fixture/")) return response;
    entry.status = response.status;
    entry.error ??= await errorCode(response);
    await state.append(entry).catch((err: unknown) => console.error("oauth-fixture log:", err));
    return response;
  },
};
