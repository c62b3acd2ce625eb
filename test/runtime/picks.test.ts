import { describe, expect, it } from "vitest";
import { demoManifests } from "../../examples/apps/src/manifests.ts";
import { demoBindings, demoCatalog } from "../../examples/tenant/catalog.ts";
import { CatalogEntry } from "../../src/apps/catalog.ts";
import type { ServingAppInfo } from "../../src/contracts.ts";
import { AppPicksSchema, picksProblems, samePicks } from "../../src/runtime/index.ts";
import { policy } from "../policy/fixtures.ts";

const MANIFESTS = demoManifests("https://apps.example", "clean");
const CATALOG = demoCatalog(MANIFESTS)
  .filter((e) => ["ride.book", "ride.quote"].includes(e.name))
  .map((e) => CatalogEntry.parse(e));
const serving = (name: string, code: string, bindings: Record<string, string>): ServingAppInfo =>
  ({
    appId: `app_${name}`,
    name,
    version: 1,
    clearance: "internal",
    manifest: { ...MANIFESTS.find((m) => m.name === code)!, name },
    bindings,
  }) as unknown as ServingAppInfo;
const swiftride = MANIFESTS.find((m) => m.name === "swiftride")!;
const APPS = [
  serving("swiftride", "swiftride", demoBindings(swiftride, CATALOG)),
  serving("noon", "cheapcab", { book: "ride.book" }),
];

describe("the request's app picks", () => {
  it("hold where each picked app serves what it is picked for, in catalog and in apps mode", () => {
    const catalog = { policy: policy({ planning: { mode: "catalog" } }), catalog: CATALOG, apps: APPS };
    expect(picksProblems(catalog, { "ride.book": "noon", "ride.quote": "swiftride" })).toEqual([]);
    expect(picksProblems(catalog, { "ride.book": ["noon", "swiftride"] })).toEqual([]);
    expect(picksProblems(catalog, { "ride.quote": "noon", "mail.send": "noon" })).toEqual([
      { choice: "ride.quote", message: "an app picked does not serve it" },
      { choice: "mail.send", message: "no serving app offers this" },
    ]);
    // Apps mode: a choice is the category the apps' functionalities share.
    const apps = { policy: policy({ planning: { mode: "apps" } }), catalog: [], apps: APPS };
    expect(picksProblems(apps, { "ride.book": ["noon", "swiftride"], "ride.quote": "noon" })).toEqual([]);
    expect(picksProblems(apps, { "ride.book": "nobody" })).toHaveLength(1);
  });

  it("are shaped as choice → app name(s); a retry must repeat them", () => {
    expect(AppPicksSchema.safeParse({ "ride.book": "noon" }).success).toBe(true);
    for (const bad of [{ ride: "noon" }, { "ride.book": "Noon" }, { "ride.book": [] }]) {
      expect(AppPicksSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
    // zod drops a "__proto__" key: it reaches no object's prototype.
    const proto = AppPicksSchema.parse(JSON.parse('{"__proto__": "x", "ride.book": "a"}'));
    expect([Object.keys(proto), Object.getPrototypeOf(proto)]).toEqual([["ride.book"], Object.prototype]);
    expect(samePicks({ "ride.book": ["a", "b"] }, { "ride.book": ["a", "b"] })).toBe(true);
    expect(samePicks({ "ride.book": "a" }, { "ride.quote": "a" })).toBe(false);
    expect(samePicks({ "ride.book": "a" }, {})).toBe(false);
  });
});
