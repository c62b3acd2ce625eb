/**
 * Egress guard: where an app endpoint, an MCP server or a model provider may point. A Worker cannot
 * resolve DNS itself, so this judges the URL as written: every literal address outside the public
 * unicast ranges and local-only names are refused in production; dev mode (`npm start`, tests)
 * allows loopback so the demo apps work. On Cloudflare, `fetch` from a Worker cannot reach private
 * addresses either; self-hosted workerd must add that itself (a resolver that refuses private
 * answers), since a public name may resolve to a private address.
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
  if (v4) return !isGlobalV4(v4.slice(1).map(Number));
  if (host.includes(":")) return !isGlobalV6(host);
  return false;
}

/** Public unicast IPv4 only: every special-purpose range (RFC 6890) is refused. */
function isGlobalV4([a = 0, b = 0, c = 0]: number[]): boolean {
  return !(
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
    (a === 169 && b === 254) || // link-local, cloud metadata
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 0 && (c === 0 || c === 2)) || // IETF protocol assignments, documentation
    (a === 192 && b === 88 && c === 99) || // 6to4 relay anycast
    (a === 192 && b === 168) ||
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    (a === 198 && b === 51 && c === 100) ||
    (a === 203 && b === 0 && c === 113) ||
    a >= 224 // multicast and reserved
  );
}

/**
 * Global unicast IPv6 only (2000::/3), less the ranges that embed or tunnel to another address
 * (6to4 2002::/16, Teredo and the other IETF assignments 2001::/23) and documentation
 * (2001:db8::/32). Everything outside 2000::/3 is refused: loopback, unspecified, IPv4-mapped and
 * -compatible forms (`::ffff:7f00:1`, `::7f00:1`), NAT64 `64:ff9b::/96`, unique-local, link- and
 * site-local, multicast.
 */
function isGlobalV6(host: string): boolean {
  const words = ipv6Words(host);
  if (!words) return false; // not an address we can read: refused
  const [w0 = 0, w1 = 0] = words;
  if ((w0 & 0xe000) !== 0x2000) return false;
  if (w0 === 0x2002) return false;
  if (w0 === 0x2001 && (w1 < 0x0200 || w1 === 0x0db8)) return false;
  return true;
}

/** The eight 16-bit words of an IPv6 address (`::` and a dotted IPv4 tail allowed), or null. */
function ipv6Words(host: string): number[] | null {
  let text = host.split("%")[0] ?? "";
  const tail = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((w) => Number.parseInt(w, 16)));
  const head = parse(halves[0] ?? "");
  const rest = halves.length === 2 ? parse(halves[1] ?? "") : [];
  const fill = halves.length === 2 ? 8 - head.length - rest.length : 0;
  const words = [...head, ...Array<number>(Math.max(fill, 0)).fill(0), ...rest];
  if (words.length !== 8 || words.some((w) => !Number.isInteger(w) || w < 0 || w > 0xffff)) return null;
  return words;
}

export function modeOf(env: { LATTICE_MODE?: string }): Mode {
  return env.LATTICE_MODE === "dev" ? "dev" : "production";
}
