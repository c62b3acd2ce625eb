/** Where the examples find Lattice: LATTICE_URL and LATTICE_FRONTEND_KEY, else what `npm start` wrote. */
import { existsSync, readFileSync } from "node:fs";

export function demoEnv(): { api: string; key: string } {
  const file = ".lattice/demo.json";
  const demo = existsSync(file)
    ? (JSON.parse(readFileSync(file, "utf8")) as { api: string; keys: { frontend: string } })
    : null;
  const api = process.env.LATTICE_URL ?? demo?.api ?? "http://127.0.0.1:8787";
  const key = process.env.LATTICE_FRONTEND_KEY ?? demo?.keys.frontend;
  if (!key) throw new Error("no frontend key: run `npm start` first (it writes .lattice/demo.json)");
  return { api, key };
}

export const DEMO_QUERY = "Email the total of this month's invoices to my accountant";
