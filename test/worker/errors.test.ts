import { describe, expect, it } from "vitest";
import { api, createTenant, expectError } from "./helpers.ts";

describe("error shape and input validation", () => {
  it("answers malformed JSON with 400 in the error shape", async () => {
    const tenant = await createTenant();
    const res = await api("POST", "/v1/admin/keys", { key: tenant.adminKey, rawBody: '{"role": "admin",' });
    const error = expectError(res, 400, "invalid_request");
    expect(error.message.toLowerCase()).toContain("json");
  });

  it("names the field on wrong types and unknown values", async () => {
    const tenant = await createTenant();
    const res = await api("POST", "/v1/admin/keys", {
      key: tenant.adminKey,
      body: { role: "root", label: 7 },
    });
    const error = expectError(res, 400, "invalid_request");
    const fields = (error.details as Array<{ field: string }>).map((d) => d.field).sort();
    expect(fields).toEqual(["body.label", "body.role"]);
  });

  it("refuses unknown fields (strict bodies)", async () => {
    const tenant = await createTenant();
    const res = await api("POST", "/v1/admin/keys", {
      key: tenant.adminKey,
      body: { role: "admin", label: "x", extra: true },
    });
    expectError(res, 400, "invalid_request");
  });

  it("answers an oversize body with 413 before reading it all", async () => {
    const tenant = await createTenant();
    const big = JSON.stringify({ role: "admin", label: "x".repeat(1024 * 1024 + 10) });
    expectError(
      await api("POST", "/v1/admin/keys", { key: tenant.adminKey, rawBody: big }),
      413,
      "payload_too_large",
    );
  });

  it("answers unknown routes with 404 in the same shape", async () => {
    expectError(await api("GET", "/v1/nothing-here"), 404, "not_found");
    expectError(await api("GET", "/nope"), 404, "not_found");
  });

  it("serves health, the OpenAPI document generated from the schemas, and a docs page", async () => {
    const health = await api("GET", "/healthz");
    expect(health.status).toBe(200);
    const doc = await api("GET", "/openapi.json");
    expect(doc.status).toBe(200);
    const spec = doc.body as {
      openapi: string;
      paths: Record<string, unknown>;
      components: { schemas: object };
    };
    expect(spec.openapi).toBe("3.1.0");
    expect(Object.keys(spec.paths)).toEqual(
      expect.arrayContaining(["/v1/admin/keys", "/v1/admin/keys/{id}"]),
    );
    expect(Object.keys(spec.components.schemas)).toEqual(expect.arrayContaining(["Error", "NewApiKey"]));
    const docs = await api("GET", "/docs");
    expect(docs.status).toBe(200);
    expect(String(docs.body)).toContain("/v1/admin/keys");
  });
});
