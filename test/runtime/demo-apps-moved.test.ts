/**
 * npm start's demo tenant against where the demo apps serve now (scripts/demo-apps.ts): an app whose
 * serving version calls an old address is moved, one none serves is missing, the others are in place.
 * The seeder submits a version for each moved app; npm start is not "running" while any is listed.
 */
import { describe, expect, it } from "vitest";
import { type AppView, misplacedApps } from "../../scripts/demo-apps.ts";
import { demoAppManifests } from "../../scripts/seed.ts";

const OLD = "http://127.0.0.1:8788";
const NEW = "http://127.0.0.1:9790";

/** The tenant's apps as GET /v1/apps answers them, each serving version 1 registered at `base`. */
function registeredAt(base: string): AppView[] {
  return demoAppManifests(base).map((manifest, i) => ({
    id: `app_${i}`,
    name: manifest.name,
    serving: 1,
    versions: [{ version: 1, clearance: "internal", bindings: {}, manifest }],
  }));
}

describe("the demo tenant's apps against the demo apps' address", () => {
  it("lists none when every app serves where the demo apps are", () => {
    expect(misplacedApps(registeredAt(NEW), demoAppManifests(NEW))).toEqual([]);
  });

  it("moves every app, HTTP and MCP, registered at another port, to the manifest at the new one", () => {
    const moved = misplacedApps(registeredAt(OLD), demoAppManifests(NEW));
    expect(moved.map((m) => m.kind)).toEqual(demoAppManifests(NEW).map(() => "moved"));
    const contacts = moved.find((m) => m.kind === "moved" && m.app.name === "contacts");
    expect(contacts).toMatchObject({
      manifest: { endpoint: `${NEW}/w/demo/contacts` },
      serving: { version: 1, clearance: "internal" },
      problem: `calls ${OLD}/w/demo/contacts, not ${NEW}/w/demo/contacts`,
    });
    const notes = moved.find((m) => m.kind === "moved" && m.app.name === "notes");
    expect(notes).toMatchObject({ manifest: { mcp: { url: `${NEW}/w/demo/mcp/notes` } } });
  });

  it("compares the serving version, not the newest: one at the new address awaiting review does not count", () => {
    const next = demoAppManifests(NEW);
    const apps = registeredAt(OLD).map((app, i) => ({
      ...app,
      versions: [...app.versions, { ...app.versions[0]!, version: 2, manifest: next[i]! }],
    }));
    expect(misplacedApps(apps, next).map((m) => m.kind)).toEqual(next.map(() => "moved"));
  });

  it("calls an app none serves, or none registered, missing: no version to move", () => {
    const apps = registeredAt(NEW)
      .filter((a) => a.name !== "bank")
      .map((a) => (a.name === "contacts" ? { ...a, serving: null } : a));
    expect(misplacedApps(apps, demoAppManifests(NEW))).toEqual([
      { kind: "missing", name: "contacts", problem: "no approved version serves" },
      { kind: "missing", name: "bank", problem: "not registered" },
    ]);
  });
});
