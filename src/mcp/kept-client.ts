import {
  isResolvedOAuth,
  type McpServer,
  type OAuthDiscovery,
  type ResolvedOAuth,
} from "../apps/manifest.ts";

/**
 * Whether a new version of an app keeps the OAuth client Lattice registered (RFC 7591) for an
 * earlier version of the same app. Users' tokens are bound to (token URL, client id, server URL)
 * (spoke/user-oauth.ts), so a client registered afresh for every version would sign every user out
 * at each approval although nothing about the authorization server changed.
 *
 * Kept only when everything the client was registered against is unchanged: the same MCP server
 * URL (the tokens' resource), the same authorization server, endpoints and discovery documents, the
 * same callback URL and the same scope (a changed scope gets a new client, so users consent to it
 * again rather than keep tokens of the old scope). Anything else registers a new client, and users
 * sign in again, as they should for a server or authorization server that changed.
 *
 * The caller passes only the same app's own earlier version (same tenant, same app id, found
 * through the developer's ownership of it): a client is never taken from another app. Only a
 * `discovered` client counts: that block is Lattice's own record (a developer's is refused), and a
 * developer's own client id skips discovery altogether.
 *
 * Nor is a client kept that could no longer work, or every later version would keep it too and the
 * developer would have no way out: one whose secret has expired or expires within a day
 * (`client_secret_expires_at`), or a confidential one whose sealed secret is gone. A client the
 * authorization server forgot is found only when it is used: the import then registers anew once
 * (mcp-import.ts).
 */
export function keptClient(
  previous: McpServer | undefined,
  serverUrl: string,
  fresh: Omit<ResolvedOAuth, "clientId" | "clientSecret">,
  found: {
    /** Now, in milliseconds since the epoch. */
    now: number;
    /** Whether the previous client's sealed secret is still stored. */
    secretFound: boolean;
    /** How a client registered now would authenticate: stands for a record from before it was kept. */
    registeringAs: KeptClient["tokenEndpointAuthMethod"];
  },
): KeptClient | null {
  if (!previous || previous.url !== serverUrl) return null;
  const before = previous.auth;
  if (!isResolvedOAuth(before) || !before.discovered || !fresh.discovered) return null;
  const same =
    before.authorizationUrl === fresh.authorizationUrl &&
    before.tokenUrl === fresh.tokenUrl &&
    before.revocationUrl === fresh.revocationUrl &&
    before.issuer === fresh.issuer &&
    before.scope === fresh.scope &&
    before.discovered.resourceMetadataUrl === fresh.discovered.resourceMetadataUrl &&
    before.discovered.authorizationServer === fresh.discovered.authorizationServer &&
    before.discovered.registrationEndpoint === fresh.discovered.registrationEndpoint &&
    before.discovered.redirectUri === fresh.discovered.redirectUri;
  if (!same) return null;
  const { clientSecretExpiresAt: expiresAt, tokenEndpointAuthMethod: method } = before.discovered;
  if (expiresAt !== undefined && expiresAt * 1000 <= found.now + EXPIRY_MARGIN_MS) return null;
  if ((method ?? found.registeringAs) !== "none" && !found.secretFound) return null;
  return {
    clientId: before.clientId,
    ...(expiresAt !== undefined && { clientSecretExpiresAt: expiresAt }),
    ...(method !== undefined && { tokenEndpointAuthMethod: method }),
  };
}

/** What a kept client carries into the new version: its id and the record of its registration. */
export type KeptClient = { clientId: string } & Pick<
  OAuthDiscovery,
  "clientSecretExpiresAt" | "tokenEndpointAuthMethod"
>;

/** A secret expiring within a day would fail during the new version's review or soon after approval. */
export const EXPIRY_MARGIN_MS = 24 * 60 * 60 * 1000;
