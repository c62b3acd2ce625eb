/**
 * Egress guard: where an app endpoint may point. A Worker cannot resolve DNS itself, so this judges
 * the URL as written: literal private, loopback and link-local addresses and local-only names are
 * refused in production; dev mode (`npm start`, tests) allows loopback so the demo apps work.
 */
export type Mode = "dev" | "production";

export function endpointProblem(endpoint: string, mode: Mode): string | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return "endpoint is not a URL";
  }
  if (url.username || url.password) return "endpoint must not carry credentials";
  if (url.search || url.hash) return "endpoint must not carry a query or fragment";
  const host = url.hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.+$/, ""); // "localhost." is localhost
  const local = isLoopback(host);
  if (mode === "dev" && local) return null;
  if (url.protocol !== "https:") return "endpoint must use https (plain http only for loopback in dev mode)";
  if (local || isPrivate(host)) return `endpoint host ${host} is a private, loopback or link-local address`;
  return null;
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127\./.test(host);
}

function isPrivate(host: string): boolean {
  if (/\.(local|internal|lan|home\.arpa)$/.test(host) || (!host.includes(".") && !host.includes(":")))
    return true;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
      (a === 169 && b === 254) || // link-local, cloud metadata
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      a >= 224
    );
  }
  if (host.includes(":")) {
    // IPv6: unspecified, link-local fe80::/10, unique-local fc00::/7, IPv4-mapped ::ffff:
    return host === "::" || /^fe[89ab]/.test(host) || /^f[cd]/.test(host) || host.startsWith("::ffff:");
  }
  return false;
}

export function modeOf(env: { LATTICE_MODE?: string }): Mode {
  return env.LATTICE_MODE === "dev" ? "dev" : "production";
}
