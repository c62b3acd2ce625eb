/**
 * The catalog edited one entry at a time (issue #33): each write a new version under the whole
 * PUT's checks, optimistic concurrency with If-Match, bindings of an approved version changed
 * without a new version, and entries proposed for unbound functionalities without any app text.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { demoManifests } from "../../examples/apps/src/manifests.ts";
import { demoBindings, demoCatalog } from "../../examples/tenant/catalog.ts";
import type { HttpManifestInput } from "../../src/apps/manifest.ts";
import { servingState } from "../../src/objects/tenant-replica/index.ts";
import { APPS_BASE, registerDemoApp } from "./demo.ts";
import { api, expectError, issueKey, readAudit } from "./helpers.ts";
import { hubWorld } from "./hub-kit.ts";

const CLEAN = demoManifests(APPS_BASE, "clean");
const manifest = (name: string) => CLEAN.find((m) => m.name === name)!;
const CATALOG = demoCatalog(CLEAN);
const CATALOG_MODE = { planning: { mode: "catalog" } };
const BANK = demoBindings(manifest("bank"), CATALOG);

const NOTE = {
  name: "notes.add",
  description: "Add a note to the user's notebook.",
  request: {
    type: "object",
    properties: { text: { type: "string" }, to: { type: "string" } },
    required: ["text"],
    additionalProperties: false,
  },
  response: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
};

type Listed = { version: number; entries: Array<{ name: string; boundBy: unknown[] }> };
const names = (body: unknown) => (body as Listed).entries.map((e) => e.name);

describe("catalog entries, one at a time", () => {
  it("lists with filters, creates, replaces and deletes, each a new version", async () => {
    const w = await hubWorld(["bank"], CATALOG_MODE, {}, { catalog: CATALOG, bindings: { bank: BANK } });
    const key = w.tenant.adminKey;
    const all = await api("GET", "/v1/admin/catalog/entries", { key });
    expect(all.response.headers.get("ETag")).toBe('"1"');
    expect(names(all.body)).toEqual(CATALOG.map((e) => e.name));
    const bound = names((await api("GET", "/v1/admin/catalog/entries?bound=true", { key })).body);
    expect(bound.sort()).toEqual(Object.values(BANK).sort());
    expect(names((await api("GET", "/v1/admin/catalog/entries?app=bank", { key })).body).sort()).toEqual(
      bound,
    );
    const unbound = names((await api("GET", "/v1/admin/catalog/entries?bound=false", { key })).body);
    expect(unbound).toHaveLength(CATALOG.length - bound.length);
    expect(unbound.some((n) => bound.includes(n))).toBe(false);
    expect(names((await api("GET", "/v1/admin/catalog/entries?q=mail.", { key })).body)).toEqual(
      CATALOG.filter((e) => e.name.startsWith("mail.")).map((e) => e.name),
    );
    expect(names((await api("GET", "/v1/admin/catalog/entries?app=nobody", { key })).body)).toEqual([]);

    const created = await api("POST", "/v1/admin/catalog/entries", { key, body: NOTE });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ version: 2, entry: { name: "notes.add", irreversible: false } });
    expectError(await api("POST", "/v1/admin/catalog/entries", { key, body: NOTE }), 409, "conflict");
    const one = await api("GET", "/v1/admin/catalog/entries/notes.add", { key });
    expect(one.body).toMatchObject({ version: 2, entry: { description: NOTE.description, boundBy: [] } });

    const reworded = { ...NOTE, description: "Write a note." };
    const replaced = await api("PUT", "/v1/admin/catalog/entries/notes.add", { key, body: reworded });
    expect(replaced.body).toMatchObject({ version: 3, broken: [] });
    expect((await api("GET", "/v1/admin/catalog/entries/notes.add", { key })).body).toMatchObject({
      entry: { description: "Write a note." },
    });
    const missing = await api("PUT", "/v1/admin/catalog/entries/notes.none", {
      key,
      body: { ...NOTE, name: "notes.none" },
    });
    expectError(missing, 404, "not_found");

    expect((await api("DELETE", "/v1/admin/catalog/entries/notes.add", { key })).body).toEqual({
      version: 4,
      broken: [],
    });
    expectError(await api("GET", "/v1/admin/catalog/entries/notes.add", { key }), 404);
    expectError(await api("DELETE", "/v1/admin/catalog/entries/notes.add", { key }), 404);
    // Deleting an entry a serving app is bound to says which binding it breaks.
    const gone = await api("DELETE", "/v1/admin/catalog/entries/bank.balance", { key });
    expect(gone.body).toEqual({
      version: 5,
      broken: [{ app: "bank", functionality: "balance", entry: "bank.balance" }],
    });
    expect((await api("GET", "/v1/admin/catalog", { key })).body).toMatchObject({ version: 5 });
    const dev = await issueKey(w.tenant, "developer");
    expect((await api("GET", "/v1/admin/catalog/entries", { key: dev.secret })).status).toBe(403);
  });

  it("refuses an entry as the whole PUT would, naming the body's field; the catalog stays", async () => {
    const w = await hubWorld([], CATALOG_MODE, {}, { catalog: CATALOG.slice(0, 2) });
    const key = w.tenant.adminKey;
    const bad = { ...NOTE, destinations: ["nowhere"], output: { confidentiality: "topsecret" } };
    const refused = expectError(
      await api("POST", "/v1/admin/catalog/entries", { key, body: bad }),
      400,
      "invalid_request",
    );
    expect(refused.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: "body.destinations.0" }),
        expect.objectContaining({ field: "body.output.confidentiality" }),
      ]),
    );
    const renamed = await api("PUT", `/v1/admin/catalog/entries/${CATALOG[0]!.name}`, {
      key,
      body: { ...CATALOG[0]!, name: "mail.other" },
    });
    expect(expectError(renamed, 400).details).toEqual([
      { field: "body.name", message: `must be the path's name, "${CATALOG[0]!.name}"` },
    ]);
    const shape = await api("POST", "/v1/admin/catalog/entries", { key, body: { ...NOTE, name: "Notes" } });
    expect(expectError(shape, 400).details).toEqual([expect.objectContaining({ field: "body.name" })]);
    // Control: the same entry without the faults is taken.
    expect((await api("GET", "/v1/admin/catalog", { key })).body).toMatchObject({ version: 1 });
    const fixed = await api("POST", "/v1/admin/catalog/entries", {
      key,
      body: { ...bad, destinations: ["to"], output: { confidentiality: "internal" } },
    });
    expect(fixed.status, JSON.stringify(fixed.body)).toBe(201);
  });

  it("If-Match: a write made against an older version is refused with 412", async () => {
    const w = await hubWorld([], CATALOG_MODE, {}, { catalog: CATALOG.slice(0, 2) });
    const key = w.tenant.adminKey;
    const etag = (await api("GET", "/v1/admin/catalog/entries", { key })).response.headers.get("ETag")!;
    expect(etag).toBe('"1"');
    // Two admins read version 1; the first write wins (the control), the second is refused.
    const first = await api("POST", "/v1/admin/catalog/entries", {
      key,
      body: NOTE,
      headers: { "If-Match": etag },
    });
    expect(first.status).toBe(201);
    expect(first.response.headers.get("ETag")).toBe('"2"');
    const second = await api("DELETE", `/v1/admin/catalog/entries/${CATALOG[0]!.name}`, {
      key,
      headers: { "If-Match": etag },
    });
    expect(expectError(second, 412, "precondition_failed").details).toEqual({ version: 2 });
    const whole = await api("PUT", "/v1/admin/catalog", {
      key,
      body: { entries: [] },
      headers: { "If-Match": etag },
    });
    expectError(whole, 412, "precondition_failed");
    expect(names((await api("GET", "/v1/admin/catalog/entries", { key })).body)).toHaveLength(3);
    // The weak form and the current version pass; a header that names no version is a 400.
    const weak = await api("DELETE", "/v1/admin/catalog/entries/notes.add", {
      key,
      headers: { "If-Match": 'W/"2"' },
    });
    expect(weak.body).toMatchObject({ version: 3 });
    const odd = await api("DELETE", `/v1/admin/catalog/entries/${CATALOG[0]!.name}`, {
      key,
      headers: { "If-Match": "latest" },
    });
    expect(expectError(odd, 400).details).toEqual([expect.objectContaining({ field: "header.if-match" })]);
  });
});

describe("binding more of an approved version", () => {
  it("makes a functionality plannable at once, without a new version; a binding that does not hold is refused", async () => {
    const { send_money: _, ...some } = BANK;
    const w = await hubWorld([], CATALOG_MODE, {}, { catalog: CATALOG });
    const key = w.tenant.adminKey;
    const dev = (await issueKey(w.tenant, "developer")).secret;
    const bankId = (await registerDemoApp(w.tenant, dev, "bank", w.world, { bindings: some })).id;
    const bindingsServed = async () =>
      (await servingState(env, w.tenant.tenantId)).view.apps.find((a) => a.name === "bank")?.bindings;
    const before = await servingState(env, w.tenant.tenantId);
    expect(await servingState(env, w.tenant.tenantId)).toBe(before); // held in this isolate
    expect(await bindingsServed()).not.toHaveProperty("send_money");

    const put = (bindings: Record<string, string>, v = 1) =>
      api("PUT", `/v1/admin/apps/${bankId}/versions/${v}/bindings`, { key, body: { bindings } });
    // An irreversible payment behind a reversible entry: refused, and nothing changes.
    const refused = expectError(await put({ ...some, send_money: "bank.balance" }), 400, "invalid_request");
    expect(refused.details).toEqual(
      expect.arrayContaining([
        { field: "body.bindings.send_money", message: expect.stringContaining("irreversible") },
      ]),
    );
    expect(await bindingsServed()).not.toHaveProperty("send_money");
    // The control: the entry that fits.
    const ok = await put({ ...some, send_money: "bank.send_money" });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const app = ok.body as { versions: Array<{ version: number; bindings: Record<string, string> }> };
    expect(app.versions).toHaveLength(1);
    expect(app.versions[0]!.bindings).toMatchObject({ send_money: "bank.send_money" });
    expect(await bindingsServed()).toMatchObject({ send_money: "bank.send_money" });
    const audit = await readAudit(w.tenant.tenantId);
    expect(audit.find((e) => e.type === "app_bindings_changed")?.detail).toMatchObject({
      appId: bankId,
      version: 1,
      bindings: { send_money: "bank.send_money" },
    });

    expectError(await put(BANK, 7), 404, "not_found");
    // Only the serving version: a pending one is bound at its approval.
    const next = await api("PUT", `/v1/apps/${bankId}`, { key: dev, body: manifest("bank") });
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expectError(await put(BANK, 2), 409, "conflict");
  });
});

/** Plants a canary in every piece of prose a developer wrote: descriptions, titles, examples. */
function prosed(m: HttpManifestInput, tag: (where: string) => string): HttpManifestInput {
  const schema = (s: Record<string, unknown>, where: string): Record<string, unknown> => ({
    ...s,
    description: tag(`${where}.d`),
    title: tag(`${where}.t`),
    examples: [tag(`${where}.e`)],
    ...(s.properties && typeof s.properties === "object"
      ? {
          properties: Object.fromEntries(
            Object.entries(s.properties).map(([k, v]) => [
              k,
              schema(v as Record<string, unknown>, `${where}.${k}`),
            ]),
          ),
        }
      : {}),
  });
  return {
    ...m,
    description: tag("app"),
    functionalities: m.functionalities.map((fn) => ({
      ...fn,
      description: tag(fn.name),
      request: schema(fn.request, `${fn.name}.request`),
      response: schema(fn.response, `${fn.name}.response`),
    })),
  };
}

describe("an entry proposed for an unbound functionality", () => {
  it("carries the functionality's schemas and none of the app's text; the admin words it and binds it", async () => {
    const w = await hubWorld([], CATALOG_MODE, {}, { catalog: [] });
    const key = w.tenant.adminKey;
    const planted: string[] = [];
    const tag = (where: string) => {
      const canary = `CANARY${planted.length}X${where.replace(/[^a-z]/gi, "").slice(0, 10)}`;
      planted.push(canary);
      return canary;
    };
    const dev = (await issueKey(w.tenant, "developer")).secret;
    const bank = await registerDemoApp(w.tenant, dev, "bank", w.world, {
      approve: false,
      edit: (m) => prosed(m, tag),
    });
    const res = await api("GET", `/v1/admin/apps/${bank.id}/versions/1/proposals`, { key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    type P = { functionality: string; entry: Record<string, unknown>; fits: string[] };
    const { proposals } = res.body as { proposals: P[] };
    expect(proposals.map((p) => p.functionality)).toEqual(
      manifest("bank").functionalities.map((f) => f.name),
    );
    // The control: the stored manifest holds every canary; no proposal holds any.
    const apps = JSON.stringify((await api("GET", "/v1/admin/apps", { key })).body);
    expect(planted.length).toBeGreaterThan(20);
    expect(planted.filter((c) => !apps.includes(c))).toEqual([]);
    expect(planted.filter((c) => JSON.stringify(proposals).includes(c))).toEqual([]);

    const send = proposals.find((p) => p.functionality === "send_money")!;
    const fn = manifest("bank").functionalities.find((f) => f.name === "send_money")!;
    expect(send.entry).toMatchObject({ name: "bank.send_money", description: "", irreversible: true });
    expect(Object.keys((send.entry.request as { properties: object }).properties)).toEqual(
      Object.keys(fn.request.properties as object),
    );
    expect(send.entry.request).toMatchObject({ required: fn.request.required });
    // Proposed as is, the entry is refused: the description is the admin's to write.
    const unwritten = await api("POST", "/v1/admin/catalog/entries", { key, body: send.entry });
    expect(expectError(unwritten, 400).details).toEqual([
      expect.objectContaining({ field: "body.description" }),
    ]);
    const written = await api("POST", "/v1/admin/catalog/entries", {
      key,
      body: { ...send.entry, description: "Send money from the user's account." },
    });
    expect(written.status, JSON.stringify(written.body)).toBe(201);
    const approved = await api("POST", `/v1/admin/apps/${bank.id}/versions/1/approve`, {
      key,
      body: { bindings: { send_money: "bank.send_money" } },
    });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    // Now bound, send_money is proposed no more; the others name the entry only where it fits them.
    const after = (await api("GET", `/v1/admin/apps/${bank.id}/versions/1/proposals`, { key })).body as {
      proposals: P[];
    };
    expect(after.proposals.map((p) => p.functionality)).not.toContain("send_money");
    expect(after.proposals.find((p) => p.functionality === "balance")?.fits).toEqual([]);
    expectError(await api("GET", `/v1/admin/apps/${bank.id}/versions/9/proposals`, { key }), 404);
  });
});
