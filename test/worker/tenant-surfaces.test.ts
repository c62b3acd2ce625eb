/**
 * The TenantDO's surfaces per caller (src/objects/stubs.ts): every public method is in exactly one
 * caller's surface or named internal, and a caller's stub answers nothing outside its own surface.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { tenantObjectName } from "../../src/objects/names.ts";
import {
  TENANT_ADMIN,
  TENANT_AUTH,
  TENANT_INTERNAL,
  TENANT_SERVING,
  tenantAdmin,
  tenantAuth,
  tenantServing,
} from "../../src/objects/stubs.ts";
import { TenantDO } from "../../src/objects/tenant/index.ts";
import { createTenant } from "./helpers.ts";

const SURFACES = {
  auth: TENANT_AUTH,
  serving: TENANT_SERVING,
  admin: TENANT_ADMIN,
  internal: TENANT_INTERNAL,
};

describe("the TenantDO's surfaces", () => {
  it("place every public method in exactly one surface", () => {
    const methods = Object.getOwnPropertyNames(TenantDO.prototype).filter((m) => m !== "constructor");
    // TypeScript's `private` is not private at run time: those are the object's own.
    const own = new Set(["tenantId", "changed", "settings", "servingCredentials"]);
    const placed = Object.values(SURFACES).flat() as string[];
    expect(new Set(placed).size).toBe(placed.length); // none in two surfaces
    expect(methods.filter((m) => !own.has(m)).sort()).toEqual([...placed].sort());
  });

  it("let a caller reach only its own surface", async () => {
    const { tenantId } = await createTenant();
    const auth = tenantAuth(env, tenantId) as unknown as Record<string, unknown>;
    const serving = tenantServing(env, tenantId) as unknown as Record<string, unknown>;
    const admin = tenantAdmin(env, tenantId) as unknown as Record<string, unknown>;
    expect(auth.putPolicy).toBeUndefined();
    expect(serving.issueKey).toBeUndefined();
    expect(admin.servingState).toBeUndefined();
    expect(admin.spendExact).toBeUndefined();
    // Control: the whole stub has them, and each surface's own methods answer.
    const whole = env.TENANT.getByName(tenantObjectName(tenantId)) as unknown as Record<string, unknown>;
    expect(typeof whole.putPolicy).toBe("function");
    expect(typeof whole.servingState).toBe("function");
    expect(await tenantAdmin(env, tenantId).info()).toMatchObject({ id: tenantId });
    expect(await tenantServing(env, tenantId).servingState(null)).toHaveProperty("stamp");
    expect(await tenantAuth(env, tenantId).authenticate("lk.nope")).toBeNull();
  });
});
