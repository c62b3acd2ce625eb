import { mcpUrlProblems } from "../apps/check.ts";
import { type Mode, modeOf } from "../apps/egress.ts";
import type { Manifest, McpAuth } from "../apps/manifest.ts";
import { appAuthHeaders, secretBinding, tokenFetch, withoutSecret, writeOnlySecret } from "../mcp/auth.ts";
import { connectMcp, MCP_LIMITS, McpFailure } from "../mcp/connection.ts";
import { withImportedTools } from "../mcp/definitions.ts";
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
  manifest: Manifest,
  c: Context,
  appId?: string,
): Promise<{ manifest: Manifest; credential: PendingCredential | null }> {
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
    ...mcpUrlProblems(manifest, mode),
  ];
  if (refused.length) throw invalid("manifest refused", refused);

  const { url, auth } = manifest.mcp;
  const boundTo = secretBinding(auth, url);
  const sent = writeOnlySecret(auth);
  const secret = sent ?? (appId && boundTo ? await tenantOf(c).appCredential(appId, boundTo) : null);
  const stripped: Manifest = { ...manifest, mcp: { ...manifest.mcp, auth: withoutSecret(auth) } };

  // Per-user OAuth: the tools are listed with the app's own client (client credentials) when it
  // is confidential; users' tokens exist only later, in their spokes.
  const listing: McpAuth =
    auth.type === "oauth" && secret
      ? {
          type: "client_credentials",
          tokenUrl: auth.tokenUrl,
          clientId: auth.clientId,
          ...(auth.scope && { scope: auth.scope }),
        }
      : auth;
  const tokenUrls = listing.type === "client_credentials" ? [listing.tokenUrl] : [];
  const headers = await appAuthHeaders(listing, secret, tokenFetch(tokenUrls, MCP_LIMITS.timeoutMs));
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
