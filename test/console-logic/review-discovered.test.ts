/**
 * The review page's block for a version whose per-user OAuth was discovered at registration. The
 * console's browser stack has no OAuth fixture to discover against (it is the workers project's
 * auxiliary worker), so the rendering model is tested here, on a block of the shape the API stores
 * (checked against the manifest's own schema), with the OAuth fixture's addresses.
 */
import { describe, expect, it } from "vitest";
import { McpAuth } from "../../src/apps/manifest.ts";
import { discoveredOAuth } from "../../src/console/browser/review-model.ts";
import { AS, DISCOVERED_MCP } from "./discovered-fixture.ts";

describe("a discovered OAuth version's review block", () => {
  it("is a stored manifest's shape", () => {
    expect(McpAuth.safeParse(DISCOVERED_MCP.auth).success).toBe(true);
  });

  it("names the issuer, the endpoints and the registered client, in the order an admin checks them", () => {
    expect(discoveredOAuth(DISCOVERED_MCP)).toEqual([
      { term: "Authorization server (issuer)", value: AS },
      { term: "Authorization endpoint", value: `${AS}/authorize` },
      { term: "Token endpoint", value: `${AS}/token` },
      { term: "Revocation endpoint", value: `${AS}/revoke` },
      { term: "Registered client id", value: "dyn-client-4f1c" },
      { term: "Client registered at", value: `${AS}/register` },
      { term: "Callback URL registered", value: "http://lattice.test/v1/oauth/callback/app_0a1b" },
      { term: "Found through (resource metadata)", value: `${AS}/.well-known/oauth-protected-resource/mcp` },
      { term: "Scope", value: "files.read" },
    ]);
  });

  it("leaves out what the server did not give (no revocation endpoint, no scope)", () => {
    const { revocationUrl: _r, scope: _s, ...auth } = DISCOVERED_MCP.auth;
    const terms = discoveredOAuth({ ...DISCOVERED_MCP, auth })?.map((r) => r.term);
    expect(terms).not.toContain("Revocation endpoint");
    expect(terms).not.toContain("Scope");
    expect(terms).toContain("Token endpoint");
  });

  it("control: OAuth a developer wrote out (no discovered block), other auth, no MCP: no block", () => {
    const { discovered: _d, ...written } = DISCOVERED_MCP.auth;
    expect(discoveredOAuth({ ...DISCOVERED_MCP, auth: written })).toBeNull();
    expect(discoveredOAuth({ url: `${AS}/mcp`, auth: { type: "user_token" } })).toBeNull();
    expect(discoveredOAuth(undefined)).toBeNull();
  });
});
