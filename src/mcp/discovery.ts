import {
  type AuthorizationServerMetadata,
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
  type FetchLike,
  IssuerMismatchError,
  LATEST_PROTOCOL_VERSION,
  type OAuthProtectedResourceMetadata,
  RegistrationRejectedError,
  registerClient,
  resourceUrlFromServerUrl,
} from "@modelcontextprotocol/client";
import { endpointProblem, type Mode } from "../apps/egress.ts";
import { McpAuth, type McpServer, type ResolvedOAuth } from "../apps/manifest.ts";
import { readBounded } from "../bounded-body.ts";
import { failure, type Result } from "../result.ts";
import { keptClient } from "./kept-client.ts";

/**
 * MCP authorization discovery, once, at registration (never at serving time, so a server cannot
 * move tokens elsewhere after an admin approved its endpoints): RFC 9728 protected-resource
 * metadata from the MCP server, RFC 8414 metadata of the authorization server it names, then RFC
 * 7591 dynamic registration of a client with Lattice's callback URL. The RFC flows are the client
 * SDK's; Lattice adds the checks: the egress guard on every URL, no redirects, a deadline and a
 * size limit on every answer, the resource naming this server (RFC 9728 §3.3), PKCE S256. A new
 * version of an app discovers again (the admin approves what the server says now) but keeps the
 * client of its previous version when nothing it was registered against changed (kept-client.ts).
 */

/** Why discovery failed: one code per step, so a developer knows which document to fix. */
export type DiscoveryFailure =
  | "url_refused"
  | "redirect_refused"
  | "unreachable"
  | "resource_metadata_unavailable"
  | "resource_mismatch"
  | "no_authorization_server"
  | "authorization_server_metadata_unavailable"
  | "issuer_mismatch"
  | "pkce_unsupported"
  | "registration_unsupported"
  | "registration_refused"
  | "metadata_out_of_bounds";

export interface Discovered {
  auth: ResolvedOAuth;
  /**
   * The newly registered client's secret (a confidential client), sealed by the caller as a
   * write-only secret; null for a public client, or a kept one (its secret stays sealed as it is).
   */
  clientSecret: string | null;
  /** The previous version's client, kept (kept-client.ts), rather than one registered now. */
  kept: boolean;
}

export const DISCOVERY_LIMITS = { timeoutMs: 10_000, maxBytes: 64 * 1024 };

class Refused extends Error {
  readonly code: DiscoveryFailure;
  constructor(code: DiscoveryFailure, message: string) {
    super(message);
    this.code = code;
  }
}

/** A fetch for discovery: each URL through the egress guard, redirects refused, deadline, bounded body. */
export function discoveryFetch(mode: Mode, limits = DISCOVERY_LIMITS): FetchLike {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    guard(url, mode);
    let response: Response;
    try {
      response = await fetch(url, {
        ...init,
        redirect: "manual",
        signal: AbortSignal.timeout(limits.timeoutMs),
      });
    } catch {
      throw new Refused("unreachable", `${url} did not answer in time`);
    }
    // A redirect could send the next request (or the metadata's authority) anywhere: none is followed.
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      throw new Refused("redirect_refused", `${url} answered with a redirect; discovery follows none`);
    }
    const text = await readBounded(response, limits.maxBytes).catch(() => null);
    if (text === null) throw new Refused("unreachable", `${url} did not answer in time`);
    if (text === "too_large")
      throw new Refused("unreachable", `${url} answered more than ${limits.maxBytes} bytes`);
    return new Response(text, { status: response.status, headers: response.headers });
  };
}

function guard(url: string, mode: Mode): void {
  const problem = endpointProblem(url, mode);
  if (problem) throw new Refused("url_refused", `${url}: ${problem.replace(/^endpoint/, "URL")}`);
}

/**
 * The MCP server's `resource_metadata` challenge (RFC 9728 §5.1), if it sends one to a request
 * without a token; otherwise the SDK looks at the well-known path.
 */
async function challenge(serverUrl: string, mode: Mode, limits: typeof DISCOVERY_LIMITS) {
  guard(serverUrl, mode);
  let response: Response;
  try {
    response = await fetch(serverUrl, {
      method: "POST",
      redirect: "manual",
      signal: AbortSignal.timeout(limits.timeoutMs),
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": LATEST_PROTOCOL_VERSION,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: LATEST_PROTOCOL_VERSION,
          capabilities: {},
          clientInfo: { name: "lattice", version: "1" },
        },
      }),
    });
  } catch {
    throw new Refused("unreachable", `${serverUrl} did not answer in time`);
  }
  // Only the headers matter; a stream the server opened is not read.
  await response.body?.cancel().catch(() => undefined);
  if (response.status >= 300 && response.status < 400)
    throw new Refused("redirect_refused", `${serverUrl} answered with a redirect; discovery follows none`);
  return response.status === 401 ? extractWWWAuthenticateParams(response) : {};
}

/** Discovers the server's authorization server and registers Lattice's client there. */
export async function discoverOAuth(
  serverUrl: string,
  options: {
    mode: Mode;
    redirectUri: string;
    scope?: string | undefined;
    clientName: string;
    /** The MCP block of the same app's previous version, whose discovered client may be kept. */
    previous?: McpServer | undefined;
    /** Whether the previous version's sealed client secret is still stored. */
    previousSecretFound?: boolean;
    limits?: typeof DISCOVERY_LIMITS;
  },
): Promise<Result<Discovered, DiscoveryFailure, undefined>> {
  const limits = options.limits ?? DISCOVERY_LIMITS;
  const fetchFn = discoveryFetch(options.mode, limits);
  try {
    const asked = await challenge(serverUrl, options.mode, limits);
    let resource: OAuthProtectedResourceMetadata;
    try {
      resource = await discoverOAuthProtectedResourceMetadata(
        serverUrl,
        asked.resourceMetadataUrl ? { resourceMetadataUrl: asked.resourceMetadataUrl } : {},
        fetchFn,
      );
    } catch (error) {
      if (error instanceof Refused) throw error;
      throw new Refused(
        "resource_metadata_unavailable",
        "the server serves no usable protected-resource metadata (RFC 9728)",
      );
    }
    const resourceMetadataUrl =
      asked.resourceMetadataUrl?.href ?? wellKnown(serverUrl, "oauth-protected-resource");
    // RFC 9728 §3.3: the metadata must be about this server, or another server's could be passed off.
    const expected = resourceUrlFromServerUrl(serverUrl).href;
    if (!URL.canParse(resource.resource) || new URL(resource.resource).href !== expected)
      throw new Refused(
        "resource_mismatch",
        `the protected-resource metadata describes ${JSON.stringify(resource.resource)}, not ${expected}`,
      );
    const issuer = resource.authorization_servers?.[0];
    if (!issuer)
      throw new Refused(
        "no_authorization_server",
        "the protected-resource metadata names no authorization server",
      );
    guard(issuer, options.mode);
    let metadata: AuthorizationServerMetadata | undefined;
    try {
      metadata = await discoverAuthorizationServerMetadata(issuer, { fetchFn });
    } catch (error) {
      if (error instanceof Refused) throw error;
      if (error instanceof IssuerMismatchError)
        throw new Refused(
          "issuer_mismatch",
          `the authorization server's metadata names another issuer than ${issuer}`,
        );
      metadata = undefined;
    }
    if (!metadata)
      throw new Refused(
        "authorization_server_metadata_unavailable",
        `${issuer} serves no usable authorization server metadata (RFC 8414)`,
      );
    // RFC 8414 names a revocation endpoint; OpenID discovery metadata has none.
    const revocation = "revocation_endpoint" in metadata ? metadata.revocation_endpoint : undefined;
    for (const url of [metadata.authorization_endpoint, metadata.token_endpoint, revocation])
      if (url !== undefined) guard(url, options.mode);
    if (!metadata.code_challenge_methods_supported?.includes("S256"))
      throw new Refused("pkce_unsupported", "the authorization server does not announce PKCE S256");
    if (!metadata.registration_endpoint)
      throw new Refused(
        "registration_unsupported",
        "the authorization server offers no dynamic client registration (RFC 7591): give the endpoints and a client id in the manifest",
      );
    guard(metadata.registration_endpoint, options.mode);

    // A confidential client where the server allows one: the import can then list the tools with it.
    const methods = metadata.token_endpoint_auth_methods_supported ?? ["client_secret_basic"];
    const method =
      (["client_secret_basic", "client_secret_post"] as const).find((m) => methods.includes(m)) ?? "none";
    const clientCredentials =
      method !== "none" && (metadata.grant_types_supported ?? []).includes("client_credentials");
    const scope = options.scope ?? asked.scope ?? resource.scopes_supported?.join(" ");
    const endpoints = {
      type: "oauth" as const,
      authorizationUrl: metadata.authorization_endpoint,
      tokenUrl: metadata.token_endpoint,
      ...(revocation && { revocationUrl: revocation }),
      issuer: metadata.issuer,
      ...(scope && { scope }),
      discovered: {
        resourceMetadataUrl,
        authorizationServer: issuer,
        registrationEndpoint: metadata.registration_endpoint,
        redirectUri: options.redirectUri,
      },
    };
    // Checked before a client is registered for it (no client left behind for a refused answer).
    fitsManifest(endpoints);
    const kept = keptClient(options.previous, serverUrl, endpoints, {
      now: Date.now(),
      secretFound: options.previousSecretFound ?? false,
      registeringAs: method,
    });
    if (kept) {
      const { clientId, ...record } = kept;
      const auth = { ...endpoints, clientId, discovered: { ...endpoints.discovered, ...record } };
      return { ok: true, auth, clientSecret: null, kept: true };
    }
    let client: Awaited<ReturnType<typeof registerClient>>;
    try {
      client = await registerClient(issuer, {
        metadata,
        clientMetadata: {
          redirect_uris: [options.redirectUri],
          client_name: options.clientName,
          grant_types: [
            "authorization_code",
            "refresh_token",
            ...(clientCredentials ? ["client_credentials"] : []),
          ],
          response_types: ["code"],
          token_endpoint_auth_method: method,
        },
        ...(scope && { scope }),
        fetchFn,
      });
    } catch (error) {
      if (error instanceof Refused) throw error;
      const status = error instanceof RegistrationRejectedError ? ` (HTTP ${error.status})` : "";
      throw new Refused(
        "registration_refused",
        `the authorization server refused the client registration${status}`,
      );
    }
    // What a later version needs to judge whether this client can be kept (kept-client.ts).
    const expiresAt = client.client_secret ? client.client_secret_expires_at : undefined;
    const auth: ResolvedOAuth = {
      ...endpoints,
      clientId: client.client_id,
      discovered: {
        ...endpoints.discovered,
        ...(expiresAt && { clientSecretExpiresAt: expiresAt }),
        tokenEndpointAuthMethod: client.client_secret ? method : "none",
      },
    };
    fitsManifest({ ...auth, clientSecret: client.client_secret });
    return { ok: true, auth, clientSecret: client.client_secret ?? null, kept: false };
  } catch (error) {
    if (error instanceof Refused) return failure(error.code, error.message);
    return failure("unreachable", "the authorization discovery failed");
  }
}

/** RFC 9728 §3.1: the well-known name inserted before the resource's path. */
function wellKnown(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  const path = url.pathname.replace(/\/+$/, "");
  return new URL(`/.well-known/${name}${path}`, url.origin).href;
}

/**
 * The servers' answers become part of the stored manifest, which every later read decodes with the
 * manifest's schema: a value out of its bounds (an empty client id, a 5,000-character scope list)
 * would leave the version unreadable for the admin's list, review and config routes.
 */
function fitsManifest(auth: unknown): void {
  const fits = McpAuth.safeParse(auth);
  if (fits.success) return;
  const field = fits.error.issues[0]?.path.join(".") || "auth";
  throw new Refused(
    "metadata_out_of_bounds",
    `the authorization servers' answers do not fit a manifest (${field} is out of its bounds)`,
  );
}
