/**
 * npm run tenant:create -- <name> [--json]
 * Creates a tenant and its first admin key on a running deployment (LATTICE_URL, default
 * http://127.0.0.1:${PORT:-8787}) with the operator secret: LATTICE_OPERATOR_SECRET, else `.dev.vars`.
 */
import { existsSync, readFileSync } from "node:fs";
import { createTenant, latticeUrl, parseDevVars } from "./lib.ts";

const args = process.argv.slice(2);
const json = args.includes("--json");
const name = args.find((a) => !a.startsWith("--"));
if (!name) {
  console.error("usage: npm run tenant:create -- <name> [--json]");
  process.exit(2);
}
const secret =
  process.env.LATTICE_OPERATOR_SECRET ??
  (existsSync(".dev.vars")
    ? parseDevVars(readFileSync(".dev.vars", "utf8")).LATTICE_OPERATOR_SECRET
    : undefined);
if (!secret) {
  console.error(
    "no operator secret: set LATTICE_OPERATOR_SECRET (or run `npm start` once to write .dev.vars)",
  );
  process.exit(2);
}
try {
  const tenant = await createTenant(latticeUrl(), secret, name);
  if (json) console.log(JSON.stringify(tenant));
  else console.log(`tenant ${tenant.tenantId} (${name})\nadmin key (shown once): ${tenant.adminKey}`);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
