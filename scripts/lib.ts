/** Small helpers shared by the local scripts and the benches. Node only, not part of the Worker. */
import { createServer } from "node:net";

export function apiPort(): number {
  return Number(process.env.PORT ?? 8787);
}

export function latticeUrl(): string {
  return process.env.LATTICE_URL ?? `http://127.0.0.1:${apiPort()}`;
}

/** Reads KEY=value lines of a .dev.vars file. */
export function parseDevVars(text: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const match = /^\s*([A-Z0-9_]+)\s*=\s*"?(.*?)"?\s*$/.exec(line);
    if (match) vars[match[1]!] = match[2]!;
  }
  return vars;
}

export async function createTenant(
  url: string,
  operatorSecret: string,
  name: string,
): Promise<{ tenantId: string; adminKey: string }> {
  const res = await fetch(`${url}/v1/operator/tenants`, {
    method: "POST",
    headers: { Authorization: `Bearer ${operatorSecret}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name }),
  });
  const body = (await res.json()) as {
    tenantId: string;
    adminKey: { secret: string };
    error?: { message: string };
  };
  if (res.status !== 201)
    throw new Error(`tenant creation failed (${res.status}): ${body.error?.message ?? "?"}`);
  return { tenantId: body.tenantId, adminKey: body.adminKey.secret };
}

/** A free loopback port (wrangler dev needs one per process, inspector included). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject()));
    });
  });
}

/** `preferred` if nothing listens on it on loopback now, else a free port the system picks. */
export function portOr(preferred: number): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(freePort()));
    server.listen(preferred, "127.0.0.1", () => server.close(() => resolve(preferred)));
  });
}

/** Resolves once `url` answers 2xx; false after `seconds`. */
export async function waitUntilUp(url: string, seconds = 120): Promise<boolean> {
  for (let i = 0; i < seconds * 4; i++) {
    try {
      if ((await fetch(url)).ok) return true;
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

/** One JSON call to the Lattice API with a key; a non-2xx answer throws with the error body. */
export async function apiCall(
  api: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const res = await fetch(`${api}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as unknown;
  if (!res.ok)
    throw new Error(`${method} ${path} failed (${res.status}): ${JSON.stringify(json).slice(0, 300)}`);
  return json;
}
