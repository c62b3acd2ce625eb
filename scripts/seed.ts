/**
 * Seeds the demo tenant on first start and remembers it in .lattice/demo.json (git-ignored). On a
 * later start the stored keys are checked; if local state was wiped, a fresh tenant is seeded.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createTenant } from "./lib.ts";

export interface Demo {
  api: string;
  apps: string;
  tenantId: string;
  keys: { admin: string; developer: string; frontend: string };
}

const FILE = ".lattice/demo.json";

export async function seedDemo(where: { api: string; apps: string; operatorSecret: string }): Promise<Demo> {
  const known = existsSync(FILE) ? (JSON.parse(readFileSync(FILE, "utf8")) as Demo) : null;
  if (known && (await works(where.api, known.keys.admin))) return save({ ...known, ...where });

  const tenant = await createTenant(where.api, where.operatorSecret, "demo");
  const issue = async (role: string) => {
    const res = await fetch(`${where.api}/v1/admin/keys`, {
      method: "POST",
      headers: { Authorization: `Bearer ${tenant.adminKey}`, "Content-Type": "application/json" },
      body: JSON.stringify({ role, label: `demo ${role}` }),
    });
    if (res.status !== 201) throw new Error(`issuing a ${role} key failed: ${res.status}`);
    return ((await res.json()) as { secret: string }).secret;
  };
  const keys = {
    admin: tenant.adminKey,
    developer: await issue("developer"),
    frontend: await issue("frontend"),
  };
  return save({ api: where.api, apps: where.apps, tenantId: tenant.tenantId, keys });
}

async function works(api: string, adminKey: string): Promise<boolean> {
  const res = await fetch(`${api}/v1/admin/keys`, { headers: { Authorization: `Bearer ${adminKey}` } });
  return res.status === 200;
}

function save(demo: Demo & { operatorSecret?: string }): Demo {
  const { operatorSecret: _omit, ...stored } = demo;
  mkdirSync(".lattice", { recursive: true });
  writeFileSync(FILE, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
  return stored;
}
