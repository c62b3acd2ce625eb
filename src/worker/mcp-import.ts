import { mcpUrlProblems } from "../apps/check.ts";
import { type Mode, modeOf } from "../apps/egress.ts";
import { isResolvedOAuth, type Manifest, type McpAuth, type McpServer } from "../apps/manifest.ts";
import {
  appAuthHeaders,
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
  const { appId, newAppId } = app;
  let manifest = submitted;
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
  // client is kept when nothing it was registered against changed: its users stay signed in, and
  // its sealed secret (bound to that client) is found below as any stored secret is.
  let registered: string | null = null;
  if (manifest.mcp.auth.type === "oauth" && !isResolvedOAuth(manifest.mcp.auth)) {
    const callbackAppId = appId ?? newAppId;
    if (!callbackAppId) throw new Error("an OAuth discovery needs the app's id for its callback URL");
    const found = await discoverOAuth(manifest.mcp.url, {
      mode,
      redirectUri: oauthCallbackUrl(c.env, callbackAppId),
      scope: manifest.mcp.auth.scope,
      clientName: `Lattice: ${manifest.name}`,
      previous: app.previous,
    });
    if (!found.ok)
      throw invalid("the MCP server's authorization could not be discovered", [
        { field: "body.mcp.auth", code: found.code, message: found.message },
      ]);
    manifest = { ...manifest, mcp: { ...manifest.mcp, auth: found.auth } };
    registered = found.clientSecret;
    // The discovered URLs pass the same guard as URLs a developer writes.
    const problems = mcpUrlProblems(manifest, mode);
    if (problems.length)
      throw invalid("the MCP server's authorization could not be discovered", [
        ...problems.map((p) => ({ ...p, code: "url_refused" as const })),
      ]);
  }
  if (!manifest.mcp) throw new Error("unreachable: the manifest lost its MCP block");

  const { url, auth } = manifest.mcp;
  const boundTo = secretBinding(auth, url);
  // A personal-token app's listing token is the developer's own, used once here and never stored.
  const listingToken = auth.type === "user_token" ? auth.token : undefined;
  const sent = writeOnlySecret(auth) ?? registered ?? undefined;
  const secret = sent ?? (appId && boundTo ? await tenantOf(c).appCredential(appId, boundTo) : null);
  const stripped: Manifest = { ...manifest, mcp: { ...manifest.mcp, auth: withoutSecret(auth) } };

  // Per-user OAuth: the tools are listed with the app's own client (client credentials) when it
  // is confidential; users' tokens exist only later, in their spokes.
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
  const headers = await appAuthHeaders(
    listing,
    listingToken ?? secret,
    tokenFetch(tokenUrls, MCP_LIMITS.timeoutMs),
  );
  if (!headers.ok)
    throw invalid("the MCP server's tools could not be listed", [
      { field: "body.mcp.auth", message: headers.message },
    ]);
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
