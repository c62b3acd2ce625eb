/**
 * An MCP block as the API stores it after discovering per-user OAuth at registration, with the
 * OAuth fixture's addresses (test/fakes/oauth-server.ts): for the review block's Node and browser tests.
 */
export const AS = "http://127.0.0.1:8790";
export const DISCOVERED_MCP = {
  url: `${AS}/mcp`,
  auth: {
    type: "oauth",
    authorizationUrl: `${AS}/authorize`,
    tokenUrl: `${AS}/token`,
    revocationUrl: `${AS}/revoke`,
    issuer: AS,
    clientId: "dyn-client-4f1c",
    scope: "files.read",
    discovered: {
      resourceMetadataUrl: `${AS}/.well-known/oauth-protected-resource/mcp`,
      authorizationServer: AS,
      registrationEndpoint: `${AS}/register`,
      redirectUri: "http://lattice.test/v1/oauth/callback/app_0a1b",
    },
  },
};
