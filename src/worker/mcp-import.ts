import { mcpUrlProblems } from "../apps/check.ts";
import { type Mode, modeOf } from "../apps/egress.ts";
import { isResolvedOAuth, type Manifest, type McpAuth, type McpServer } from "../apps/manifest.ts";
import {
  appAuthHeaders,
  forgetAppToken,
  oauthCallbackUrl,
  secretBinding,
  tokenFetch,
  withoutSecret,
  writeOnlySecret,
} from "../mcp/auth.ts";
import { connectMcp, MCP_LIMITS, McpFailure } from "../mcp/connection.ts";
import { withImportedTools } from "../mcp/definitions.ts";
import { discoverOAuth } from "../mcp/discovery.ts";
import { invalid } from "./errors.ts";
import { tenantOf } from "./tenant.ts";

/** A secret to seal once the app has its id: for `boundTo`, the only URL it will be sent to. */
export interface PendingCredential {
  boundTo: string;
  secret: string;
}

type Context = Parameters<typeof tenantOf>[0] & {
  env: { LATTICE_MODE?: string; LATTICE_PUBLIC_URL?: string };
};

/**
 * Registration of an MCP app: the server's `tools/list` becomes functionalities of the version
 * under review. The write-only secret leaves the manifest here; a new version without one reuses
 * the secret stored for the same URL. Nothing the server says is checked by a model, only by code.
 */
export async function importMcp(
  submitted: Manifest,
  c: Context,
  app: {
    /** A new version of this app (its owner checked by the caller). */
    appId?: string;
    /** A new app: the id it will get. */
    newAppId?: string;
    /** The MCP block of this same app's latest pending or approved version, if any. */
    previous?: McpServer | undefined;
  },
): Promise<{ manifest: Manifest; credential: PendingCredential | null }> {
  const { appId } = app;
  const manifest = submitted;
  // Only the import writes these, whether or not the manifest names a server.
  const toolsSet = manifest.functionalities
    .map((f, i) => ({ f, i }))
    .filter(({ f }) => f.tool !== undefined)
    .map(({ i }) => ({ field: `body.functionalities.${i}.tool`, message: "set by the MCP import" }));
  if (toolsSet.length) throw invalid("manifest refused", toolsSet);
  if (!manifest.mcp) return { manifest, credential: null };
  const mode: Mode = modeOf(c.env);
  const refused = [
    ...(manifest.mcp.definitions
      ? [{ field: "body.mcp.definitions", message: "filled by Lattice from the server's tools/list" }]
      : []),
    ...(manifest.mcp.auth.type === "oauth" && mode === "production" && !c.env.LATTICE_PUBLIC_URL
      ? [
          {
            field: "body.mcp.auth",
            message: "this deployment sets no LATTICE_PUBLIC_URL for OAuth callbacks",
          },
        ]
      : []),
    ...discoveryProblems(manifest.mcp.auth),
    ...mcpUrlProblems(manifest, mode),
  ];
  if (refused.length) throw invalid("manifest refused", refused);

  // Per-user OAuth without endpoints: discovered and a client registered now, so the version under
  // review names concrete endpoints (and serving never discovers again). The previous version's
  // client is kept when nothing it was registered against changed and it can still work: its users
  // stay signed in, and its sealed secret (bound to that client) is found below as any stored
  // secret is.
  const discovering = manifest.mcp.auth.type === "oauth" && !isResolvedOAuth(manifest.mcp.auth);
  let resolved: Resolved = discovering
    ? await discovered(manifest, c, mode, app, app.previous)
    : { manifest, registered: null, kept: false };
  let headers = await listingHeaders(resolved, c, appId);
  // A kept client the authorization server no longer accepts (deleted, expired, its secret
  // revoked) would be kept by every later version too: registered anew, once. A client registered
  // just now that is refused is the server's failure, reported as such.
  if (!headers.ok && headers.code === "client_refused" && resolved.kept) {
    resolved = await discovered(manifest, c, mode, app, undefined);
    headers = await listingHeaders(resolved, c, appId);
  }
  if (!headers.ok)
    throw invalid("the MCP server's tools could not be listed", [
      { field: "body.mcp.auth", message: headers.message },
    ]);
  const { url, sent, boundTo, stripped } = headers;
  let definitions: Awaited<ReturnType<Awaited<ReturnType<typeof connectMcp>>["listTools"]>>;
  try {
    const connection = await connectMcp(url, headers.headers);
    try {
      definitions = await connection.listTools();
    } finally {
      await connection.close();
    }
  } catch (error) {
    const message = error instanceof McpFailure ? error.message : "the MCP server could not be reached";
    throw invalid("the MCP server's tools could not be listed", [{ field: "body.mcp.url", message }]);
  }
  const imported = withImportedTools(stripped, definitions);
  if (!imported.ok) {
    throw invalid(
      "some of the MCP server's tools cannot be imported",
      imported.details.map((p) => ({ ...p, field: `body.${p.field}` })),
    );
  }
  return {
    manifest: imported.manifest,
    credential: sent !== undefined && boundTo ? { boundTo, secret: sent } : null,
  };
}

interface Resolved {
  manifest: Manifest;
  /** The secret of a client registered just now, to seal. */
  registered: string | null;
  /** The previous version's client was kept rather than a new one registered. */
  kept: boolean;
}

/** Discovers the server's authorization and keeps `previous`'s client or registers one. */
async function discovered(
  manifest: Manifest,
  c: Context,
  mode: Mode,
  app: { appId?: string; newAppId?: string },
  previous: McpServer | undefined,
): Promise<Resolved> {
  const mcp = manifest.mcp;
  if (mcp?.auth.type !== "oauth") throw new Error("unreachable: discovery without per-user OAuth");
  const callbackAppId = app.appId ?? app.newAppId;
  if (!callbackAppId) throw new Error("an OAuth discovery needs the app's id for its callback URL");
  // A confidential client is kept only with its secret: the binding names that client (auth.ts).
  const previousBinding = previous ? secretBinding(previous.auth, previous.url) : null;
  const previousSecretFound =
    app.appId !== undefined &&
    previousBinding !== null &&
    (await tenantOf(c).appCredential(app.appId, previousBinding)) !== null;
  const found = await discoverOAuth(mcp.url, {
    mode,
    redirectUri: oauthCallbackUrl(c.env, callbackAppId),
    scope: mcp.auth.scope,
    clientName: `Lattice: ${manifest.name}`,
    previous,
    previousSecretFound,
  });
  if (!found.ok)
    throw invalid("the MCP server's authorization could not be discovered", [
      { field: "body.mcp.auth", code: found.code, message: found.message },
    ]);
  const resolved = { ...manifest, mcp: { ...mcp, auth: found.auth } };
  // The discovered URLs pass the same guard as URLs a developer writes.
  const problems = mcpUrlProblems(resolved, mode);
  if (problems.length)
    throw invalid("the MCP server's authorization could not be discovered", [
      ...problems.map((p) => ({ ...p, code: "url_refused" as const })),
    ]);
  return { manifest: resolved, registered: found.clientSecret, kept: found.kept };
}

/**
 * The headers to list the tools with, and the secret to seal. Per-user OAuth: the tools are listed
 * with the app's own client (client credentials) when it is confidential; users' tokens exist only
 * later, in their spokes.
 */
async function listingHeaders(resolved: Resolved, c: Context, appId: string | undefined) {
  const mcp = resolved.manifest.mcp;
  if (!mcp) throw new Error("unreachable: the manifest lost its MCP block");
  const { url, auth } = mcp;
  const boundTo = secretBinding(auth, url);
  // A personal-token app's listing token is the developer's own, used once here and never stored.
  const listingToken = auth.type === "user_token" ? auth.token : undefined;
  const sent = writeOnlySecret(auth) ?? resolved.registered ?? undefined;
  const secret = sent ?? (appId && boundTo ? await tenantOf(c).appCredential(appId, boundTo) : null);
  const stripped: Manifest = { ...resolved.manifest, mcp: { ...mcp, auth: withoutSecret(auth) } };
  const listing: McpAuth = listingToken
    ? { type: "bearer" }
    : isResolvedOAuth(auth) && secret
      ? {
          type: "client_credentials",
          tokenUrl: auth.tokenUrl,
          clientId: auth.clientId,
          ...(auth.scope && { scope: auth.scope }),
        }
      : auth;
  const tokenUrls = listing.type === "client_credentials" ? [listing.tokenUrl] : [];
  // A fresh token: the import is where a client the server no longer accepts must show, and a
  // token cached from an earlier import would hide it until it expired.
  forgetAppToken(listing, listingToken ?? secret);
  const headers = await appAuthHeaders(
    listing,
    listingToken ?? secret,
    tokenFetch(tokenUrls, MCP_LIMITS.timeoutMs),
  );
  return headers.ok ? { ...headers, url, sent, boundTo, stripped } : headers;
}

/**
 * Per-user OAuth: the endpoints and client id all given, or none (discovery); `discovered` is
 * Lattice's own record, never a developer's.
 */
function discoveryProblems(auth: McpAuth): Array<{ field: string; message: string }> {
  if (auth.type !== "oauth") return [];
  const problems: Array<{ field: string; message: string }> = [];
  if (auth.discovered)
    problems.push({
      field: "body.mcp.auth.discovered",
      message: "filled by Lattice from the server's metadata",
    });
  const given = (["authorizationUrl", "tokenUrl", "clientId"] as const).filter((k) => auth[k] !== undefined);
  if (given.length > 0 && given.length < 3)
    problems.push({
      field: "body.mcp.auth",
      message: "give authorizationUrl, tokenUrl and clientId together, or none of them to discover them",
    });
  if (given.length === 0)
    for (const k of ["revocationUrl", "issuer", "clientSecret"] as const)
      if (auth[k] !== undefined)
        problems.push({
          field: `body.mcp.auth.${k}`,
          message: "discovered with the endpoints: give it only with authorizationUrl, tokenUrl and clientId",
        });
  return problems;
}
