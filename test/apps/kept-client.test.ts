import { describe, expect, it } from "vitest";
import type { McpServer } from "../../src/apps/manifest.ts";
import { keptClientId } from "../../src/mcp/kept-client.ts";

const AS = "https://auth.example";
const SERVER = "https://mcp.example/mcp";

/** What discovery finds for SERVER today (every field a client was registered against). */
const fresh = {
  type: "oauth" as const,
  authorizationUrl: `${AS}/authorize`,
  tokenUrl: `${AS}/token`,
  revocationUrl: `${AS}/revoke`,
  issuer: AS,
  scope: "files:read",
  discovered: {
    resourceMetadataUrl: "https://mcp.example/.well-known/oauth-protected-resource/mcp",
    authorizationServer: AS,
    registrationEndpoint: `${AS}/register`,
    redirectUri: "https://lattice.example/v1/oauth/callback/app_1",
  },
};
const previous: McpServer = { url: SERVER, auth: { ...fresh, clientId: "client-v1" } };

describe("keptClientId: a new version keeps its predecessor's discovered OAuth client", () => {
  it("keeps it when the server URL and everything discovered are the same", () => {
    expect(keptClientId(previous, SERVER, fresh)).toBe("client-v1");
  });

  it("control: a new client for another server URL (the tokens' resource)", () => {
    expect(keptClientId(previous, "https://mcp.example/mcp-b", fresh)).toBeNull();
  });

  it.each([
    ["issuer", { issuer: "https://other-auth.example" }],
    ["token endpoint", { tokenUrl: `${AS}/oauth/token` }],
    ["authorization endpoint", { authorizationUrl: `${AS}/oauth/authorize` }],
    ["revocation endpoint", { revocationUrl: undefined }],
    ["scope", { scope: "files:read files:write" }],
    ["authorization server", { discovered: { ...fresh.discovered, authorizationServer: `${AS}/v2` } }],
    ["registration endpoint", { discovered: { ...fresh.discovered, registrationEndpoint: `${AS}/dcr` } }],
    ["resource metadata", { discovered: { ...fresh.discovered, resourceMetadataUrl: `${AS}/prm` } }],
    [
      "callback URL (the deployment's public URL moved)",
      { discovered: { ...fresh.discovered, redirectUri: "https://new.example/v1/oauth/callback/app_1" } },
    ],
  ])("control: a new client when the %s changed", (_what, change) => {
    expect(keptClientId(previous, SERVER, { ...fresh, ...change })).toBeNull();
  });

  it("control: none to keep without a previous version, or from a developer's own client", () => {
    expect(keptClientId(undefined, SERVER, fresh)).toBeNull();
    const { discovered: _d, ...given } = fresh;
    const developers: McpServer = { url: SERVER, auth: { ...given, clientId: "dev-client" } };
    expect(keptClientId(developers, SERVER, fresh)).toBeNull();
    expect(keptClientId({ url: SERVER, auth: { type: "oauth" } }, SERVER, fresh)).toBeNull();
    expect(keptClientId({ url: SERVER, auth: { type: "bearer" } }, SERVER, fresh)).toBeNull();
  });
});
