/**
 * Every route of /openapi.json, walked with random parameters, headers and bodies (wrong types,
 * huge strings, deep nesting, bad JSON, unicode, real and forged credentials). Never a 5xx, always
 * the error shape on a refusal, and nothing stored by a refused request.
 */
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tenantObjectName } from "../../src/objects/names.ts";
import { rpc } from "../../src/objects/rpc.ts";
import type { TenantDO } from "../../src/objects/tenant/index.ts";
import { api, createTenant, issueKey } from "./helpers.ts";

type Route = { method: string; path: string; tag: string };

const nasty = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.constantFrom("", "..", "../../etc/passwd", "%00", "constructor", "__proto__", "ses_", "a".repeat(5000)),
  fc.integer().map(String),
);

const ascii = fc.oneof(fc.string({ maxLength: 60 }), fc.constant("A".repeat(43)), fc.constant("lu.x.y.z"));

/** A JSON-ish body: a JSON value (deep, odd keys), a huge string, or text that is not JSON. */
const body = fc.oneof(
  fc.jsonValue({ maxDepth: 6 }).map((v) => ({ json: v })),
  fc.dictionary(nasty, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 8 }).map((v) => ({ json: v })),
  fc.constant({ json: { a: "x".repeat(200_000) } }),
  fc.constant({ raw: JSON.stringify(Array.from({ length: 3000 }, () => [])).replaceAll("[]", "[[[[") }),
  fc.oneof(fc.string({ maxLength: 200 }), fc.constant("{"), fc.constant('{"a":')).map((raw) => ({ raw })),
  fc.constant({}),
);

describe("every route under random input", () => {
  it("answers below 500, in the error shape when it refuses, and stores nothing it refused", async () => {
    const tenant = await createTenant();
    const keys = {
      admin: tenant.adminKey,
      developer: (await issueKey(tenant, "developer")).secret,
      frontend: (await issueKey(tenant, "frontend")).secret,
    };
    const spec = (await api("GET", "/openapi.json")).body as {
      paths: Record<string, Record<string, { tags?: string[] }>>;
    };
    const routes: Route[] = Object.entries(spec.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        tag: op.tags?.[0] ?? "",
      })),
    );
    expect(routes.length).toBeGreaterThan(20);
    const tenantDO = rpc<TenantDO>(env.TENANT.getByName(tenantObjectName(tenant.tenantId)));
    const stored = async () =>
      JSON.stringify([
        (await tenantDO.policy()).version,
        (await tenantDO.listKeys()).length,
        (await tenantDO.listApps()).length,
        await tenantDO.catalog(),
      ]);

    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.array(nasty, { minLength: 4, maxLength: 4 }),
        fc.oneof(
          // Mostly the key of the route's own role, so most requests reach the route's own checks.
          { arbitrary: fc.constant("own"), weight: 8 },
          fc.constantFrom(keys.admin, keys.developer, keys.frontend),
          fc.constant(undefined),
          // Header values are bytes on the wire: printable ASCII (a client cannot send more).
          ascii.map((s) => `lk.${tenant.tenantId}.${s}`),
          ascii,
        ),
        body,
        fc.constantFrom("application/json", "text/plain", "application/json; charset=utf-16", ""),
        async (route, params, credential, payload, contentType) => {
          const key = credential === "own" ? keys[route.tag as keyof typeof keys] : credential;
          let i = 0;
          const path = route.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(params[i++ % 4]!));
          const before = await stored();
          const hasBody = route.method !== "GET" && route.method !== "DELETE";
          const res = await api(route.method, path, {
            ...(key !== undefined && { key }),
            ...(hasBody && "json" in payload && { body: payload.json }),
            ...(hasBody && "raw" in payload && { rawBody: payload.raw }),
            headers: contentType ? { "Content-Type": contentType } : {},
          });
          expect(res.status, `${route.method} ${path}`).toBeLessThan(500);
          if (res.status >= 400) {
            expect(res.body, `${route.method} ${path} ${res.status}`).toMatchObject({
              error: { code: expect.any(String), message: expect.any(String) },
            });
            expect(await stored(), `${route.method} ${path} stored something it refused`).toBe(before);
          }
        },
      ),
      { numRuns: 400 },
    );
  }, 120_000);
});
