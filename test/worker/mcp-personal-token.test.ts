import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api, expectError, issueKey } from "./helpers.ts";
import { ask, display, type HubWorld, hubWorld, openSession, ref, script, settle, tool } from "./hub-kit.ts";

/** The OAuth fixture's MCP servers (test double) take its access tokens: one stands in for a personal token. */
const AS = "http://127.0.0.1:8790";
const fixture = () => (env as unknown as { OAUTH_FIXTURE: Fetcher }).OAUTH_FIXTURE;
let n = 0;
const unique = (p: string) => `${p}${Date.now().toString(36)}${n++}`;

/** A fresh access token of the fixture's confidential client (subject "lattice-client"). */
async function fixtureToken(): Promise<string> {
  const res = await fixture().fetch(`${AS}/token`, {
    method: "POST",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Authorization: `Basic ${btoa("lattice-client:lattice-client-secret")}`,
    },
    body: "grant_type=client_credentials",
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

async function fixtureLog(): Promise<Array<Record<string, unknown>>> {
  return (await (await fixture().fetch(`${AS}/_fixture/log`)).json()) as Array<Record<string, unknown>>;
}

async function personalApp(w: HubWorld, path: string, dev: string, name: string, id?: string) {
  const body = {
    name,
    description: "files over MCP, each user with their own token",
    version: "1.0.0",
    mcp: { url: `${AS}${path}`, auth: { type: "user_token", token: await fixtureToken() } },
  };
  const res = id
    ? await api("PUT", `/v1/apps/${id}`, { key: dev, body })
    : await api("POST", "/v1/apps", { key: dev, body });
  expect(res.status, JSON.stringify(res.body)).toBe(id ? 200 : 201);
  expect(JSON.stringify(res.body)).not.toContain("fxat_"); // the listing token is not kept
  const appId = id ?? (res.body as { id: string }).id;
  const version = id ? 2 : 1;
  const ok = await api("POST", `/v1/admin/apps/${appId}/versions/${version}/approve`, {
    key: w.tenant.adminKey,
  });
  expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  return appId;
}

async function whoami(w: HubWorld, user: string, name: string) {
  await script(w.models.planner, [
    { respond: { steps: [tool("me", `${name}.whoami`, {}), display(ref("me", "text"))] } },
  ]);
  const sid = await openSession(w, { userId: user });
  return settle(w, sid, await ask(w, sid, "who am I?"));
}

describe("per-user personal tokens for MCP apps (user_token)", () => {
  it("set, used as the user's Bearer token, never read back; dropped: connect first", async () => {
    const w = await hubWorld([]);
    const dev = (await issueKey(w.tenant, "developer")).secret;
    const name = unique("pat");
    const appId = await personalApp(w, "/mcp", dev, name);
    const user = unique("u");
    const slot = `/v1/users/${user}/personal-tokens/${appId}`;

    // Without one: the same "connect first" outcome as OAuth without a connection.
    const first = await whoami(w, user, name);
    expect(first.status).toBe("failed");
    expect(first.error?.code).toBe("authorization_required");
    expect((await api("GET", slot, { key: w.frontend })).body).toMatchObject({ set: false });

    const token = await fixtureToken();
    const set = await api("PUT", slot, { key: w.frontend, body: { token } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const status = await api("GET", slot, { key: w.frontend });
    expect(status.body).toMatchObject({ set: true });
    expect(JSON.stringify(status.body)).not.toContain(token);
    const called = await whoami(w, user, name);
    expect(called.status, JSON.stringify(called.error)).toBe("completed");
    expect(called.display[0]?.value).toBe("you are lattice-client");

    // Another user of the app has none of it.
    expect((await whoami(w, unique("u"), name)).error?.code).toBe("authorization_required");
    // A user token reaches only its own user's slot.
    const other = unique("u");
    const otherToken = (
      (await api("POST", `/v1/users/${other}/tokens`, { key: w.frontend, body: {} })).body as {
        token: string;
      }
    ).token;
    expectError(await api("GET", slot, { key: otherToken }), 404);

    expect((await api("DELETE", slot, { key: w.frontend })).status).toBe(200);
    expect((await whoami(w, user, name)).error?.code).toBe("authorization_required");
    expectError(await api("DELETE", slot, { key: w.frontend }), 404);
  });

  it("is sent only to the server URL it was set for; control: set for the new URL, it goes there", async () => {
    const w = await hubWorld([]);
    const dev = (await issueKey(w.tenant, "developer")).secret;
    const name = unique("pat");
    const appId = await personalApp(w, "/mcp", dev, name);
    const user = unique("u");
    const slot = `/v1/users/${user}/personal-tokens/${appId}`;
    expect((await api("PUT", slot, { key: w.frontend, body: { token: await fixtureToken() } })).status).toBe(
      200,
    );
    expect((await whoami(w, user, name)).status).toBe("completed");

    // Version 2 moves the server to /mcp-b: the token given for /mcp stays behind.
    await personalApp(w, "/mcp-b", dev, name, appId);
    const before = (await fixtureLog()).length;
    const moved = await whoami(w, user, name);
    expect(moved.error?.code).toBe("authorization_required");
    const calls = (await fixtureLog()).slice(before).filter((e) => e.path === "/mcp-b");
    expect(calls.filter((e) => e.subject !== undefined)).toEqual([]); // no request carried a token

    // Control: a token set for /mcp-b reaches /mcp-b.
    expect((await api("PUT", slot, { key: w.frontend, body: { token: await fixtureToken() } })).status).toBe(
      200,
    );
    const again = (await fixtureLog()).length;
    expect((await whoami(w, user, name)).status).toBe("completed");
    const reached = (await fixtureLog())
      .slice(again)
      .filter((e) => e.path === "/mcp-b" && e.tool === "whoami");
    expect(reached[0]?.subject).toBe("lattice-client");
  });

  it("a token set before any call is in the user's export (never its value) and goes with erasure", async () => {
    const w = await hubWorld([]);
    const dev = (await issueKey(w.tenant, "developer")).secret;
    const name = unique("pat");
    const appId = await personalApp(w, "/mcp", dev, name);
    const user = unique("u");
    const slot = `/v1/users/${user}/personal-tokens/${appId}`;
    const token = await fixtureToken();
    // No call first: setting the token alone must name this spoke in the user's index.
    expect((await api("PUT", slot, { key: w.frontend, body: { token } })).status).toBe(200);

    const exported = await api("GET", `/v1/users/${user}/export`, { key: w.tenant.adminKey });
    expect(exported.status, JSON.stringify(exported.body)).toBe(200);
    const spokes = (exported.body as { spokes: Array<{ appId: string; personalTokens: unknown[] }> }).spokes;
    expect(spokes.find((s) => s.appId === appId)?.personalTokens).toEqual([
      { serverUrl: `${AS}/mcp`, setAt: expect.any(String) },
    ]);
    expect(JSON.stringify(exported.body)).not.toContain(token);

    const erased = await api("DELETE", `/v1/users/${user}`, { key: w.tenant.adminKey });
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    expect((erased.body as { cleared: { personalTokens: number } }).cleared.personalTokens).toBe(1);
    expect((await api("GET", slot, { key: w.frontend })).body).toMatchObject({ set: false });
    expect((await whoami(w, user, name)).error?.code).toBe("authorization_required");
  });

  it("lists the apps that take a personal token, set or not (never the token); control: another user is refused", async () => {
    const w = await hubWorld([]);
    const dev = (await issueKey(w.tenant, "developer")).secret;
    const name = unique("pat");
    const appId = await personalApp(w, "/mcp", dev, name);
    const user = unique("u");
    const list = async (key: string = w.frontend) => {
      const res = await api("GET", `/v1/users/${user}/personal-tokens`, { key });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return (res.body as { apps: Array<{ appId: string; name: string; set: boolean }> }).apps;
    };
    expect(await list()).toEqual([{ appId, name, set: false, setAt: null }]);
    // Reading the list made no spoke for the user: their export names none.
    const spokes = async () =>
      (
        (await api("GET", `/v1/users/${user}/export`, { key: w.tenant.adminKey })).body as {
          spokes: unknown[];
        }
      ).spokes;
    expect(await spokes()).toEqual([]);
    const token = await fixtureToken();
    await api("PUT", `/v1/users/${user}/personal-tokens/${appId}`, { key: w.frontend, body: { token } });
    const after = await list();
    expect(after).toEqual([{ appId, name, set: true, setAt: expect.any(String) }]);
    expect(await spokes()).toHaveLength(1); // control: setting one binds the spoke, and the export finds it
    expect(JSON.stringify(after)).not.toContain(token);
    // Another user's token cannot read this user's list.
    const other = unique("u");
    const otherToken = (
      (await api("POST", `/v1/users/${other}/tokens`, { key: w.frontend, body: {} })).body as {
        token: string;
      }
    ).token;
    expectError(await api("GET", `/v1/users/${user}/personal-tokens`, { key: otherToken }), 404);
  });
});
