/** Small helpers shared by the local scripts (start, tenant:create). Node only, not part of the Worker. */

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
