import { describe, expect, it } from "vitest";
import type { McpServer } from "../../src/apps/manifest.ts";
import { EXPIRY_MARGIN_MS, keptClient } from "../../src/mcp/kept-client.ts";

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
const NOW = Date.UTC(2026, 11, 8);
/** The previous client's secret still sealed; a confidential client would be registered now. */
const found = { now: NOW, secretFound: true, registeringAs: "client_secret_basic" as const };
const keptClientId = (
  before: McpServer | undefined,
  serverUrl: string,
  now: Parameters<typeof keptClient>[2],
  context: Parameters<typeof keptClient>[3] = found,
) => keptClient(before, serverUrl, now, context)?.clientId ?? null;
/** `previous` with its registration record (RFC 7591 fields Lattice keeps). */
const recorded = (record: Record<string, unknown>): McpServer => ({
  url: SERVER,
  auth: { ...fresh, clientId: "client-v1", discovered: { ...fresh.discovered, ...record } },
});
const seconds = (ms: number) => Math.floor(ms / 1000);

describe("keptClient: a new version keeps its predecessor's discovered OAuth client", () => {
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

  it("a new client when the kept one's secret has expired or expires within a day", () => {
    const expired = recorded({ clientSecretExpiresAt: seconds(NOW) - 60 });
    const expiring = recorded({ clientSecretExpiresAt: seconds(NOW + EXPIRY_MARGIN_MS) - 60 });
    expect(keptClientId(expired, SERVER, fresh)).toBeNull();
    expect(keptClientId(expiring, SERVER, fresh)).toBeNull();
  });

  it("control: kept with a secret expiring later than a day, or never (no expiry recorded)", () => {
    const later = recorded({ clientSecretExpiresAt: seconds(NOW + 30 * EXPIRY_MARGIN_MS) });
    expect(keptClient(later, SERVER, fresh, found)).toEqual({
      clientId: "client-v1",
      clientSecretExpiresAt: seconds(NOW + 30 * EXPIRY_MARGIN_MS),
    });
    expect(keptClientId(previous, SERVER, fresh)).toBe("client-v1");
  });

  it("a new client for a confidential one whose sealed secret is gone", () => {
    const gone = { ...found, secretFound: false };
    expect(
      keptClientId(recorded({ tokenEndpointAuthMethod: "client_secret_post" }), SERVER, fresh, gone),
    ).toBeNull();
    // A record from before the method was kept: the client registered now stands for it.
    expect(keptClientId(previous, SERVER, fresh, gone)).toBeNull();
  });

  it("control: a public client is kept without a secret, and a confidential one with it", () => {
    const gone = { ...found, secretFound: false };
    const publicClient = recorded({ tokenEndpointAuthMethod: "none" });
    expect(keptClient(publicClient, SERVER, fresh, gone)).toEqual({
      clientId: "client-v1",
      tokenEndpointAuthMethod: "none",
    });
    expect(keptClientId(previous, SERVER, fresh, { ...gone, registeringAs: "none" })).toBe("client-v1");
    expect(keptClientId(recorded({ tokenEndpointAuthMethod: "client_secret_post" }), SERVER, fresh)).toBe(
      "client-v1",
    );
  });
});
