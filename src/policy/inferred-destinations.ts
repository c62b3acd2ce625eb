/**
 * Destinations fail closed. A tool's destinations are the paths its developer declared plus every
 * argument that looks like a place data, messages or money go, whether the tool can be undone or
 * not, at any depth (paths as in destinations.ts: `to`, `message.cc[]`). An argument looks like
 * one when
 *
 * - its JSON Schema says `format` is one of `DESTINATION_FORMATS` (directly, in an
 *   `anyOf`/`oneOf`/`allOf` branch, or through a local `$ref`; a `$ref` that does not resolve in
 *   the schema itself cannot be read, so what it describes counts), or
 * - its name has a destination word (`DESTINATION_WORDS`, e.g. `webhook_url`, `recipientEmail`,
 *   `payee.account`; the short `to`, `cc`, `bcc` only as the whole name); everything under such a
 *   name counts, or
 * - its value is an address (a URL with a scheme or `host.tld/…`, an e-mail address, an
 *   international phone number, an IBAN), or a string that contains a reference anywhere
 *   (references.ts: a host such as `<secret>.evil.test`, `Eve <eve@evil.test>`, a national phone
 *   number, an IP with or without a scheme, a wallet, a handle, an IBAN whose check digits hold,
 *   or something shaped like a link that cannot be read) (#43).
 *
 * A declaration only adds: nothing a developer writes removes an inferred destination. Only a
 * tenant admin, confirming a tool's whole list at review (`confirmed`), does. An irreversible tool
 * that nobody declared anything for stays read as before: every string and number is a destination.
 */
import { scalars, valuesAt } from "./destinations.ts";
import { isRecord } from "./json.ts";
import { type Reference, references } from "./references.ts";

/** What the rule needs of a tool: an agent tool, a functionality, a collaboration target. */
export interface DestinationSource {
  readonly irreversible: boolean;
  /** Declared paths (the developer's, with the admin's where confirmed); undefined: none declared. */
  readonly destinations?: readonly string[];
  /** The JSON Schema of its arguments: where `format` is read. */
  readonly parameters?: unknown;
  /** An admin confirmed `destinations` as the whole list at review: nothing is inferred. */
  readonly confirmed?: boolean;
}

export interface Destination {
  readonly path: string;
  readonly value: string | number;
}

export const DESTINATION_FORMATS: ReadonlySet<string> = new Set([
  "uri",
  "uri-reference",
  "iri",
  "iri-reference",
  "email",
  "idn-email",
  "hostname",
  "idn-hostname",
]);

/** Words that name an address, a recipient or an account wherever they stand in a name (plural too). */
export const DESTINATION_WORDS: ReadonlySet<string> = new Set([
  // URLs and hosts
  "url",
  "uri",
  "iri",
  "link",
  "href",
  "endpoint",
  "webhook",
  "callback",
  "host",
  "hostname",
  "domain",
  // people and places messages go to
  "recipient",
  "receiver",
  "destination",
  "email",
  "phone",
  "telephone",
  "mobile",
  "sms",
  "fax",
  // money
  "iban",
  "account",
  "payee",
  "beneficiary",
  "wallet",
]);

/** Too short to trust inside a longer name (`to_date`, `account_cc_id`): they count as the whole name only. */
const WHOLE_NAME_WORDS: ReadonlySet<string> = new Set(["to", "cc", "bcc", "tel"]);

/** The words of a property name: `webhookURL`, `reply-to`, `e_mail` → webhook url / reply to / email. */
function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .replace(/\be[\s_-]?mail/g, "email")
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

export function isDestinationName(name: string): boolean {
  const words = wordsOf(name);
  if (words.length === 1 && WHOLE_NAME_WORDS.has(words[0]!)) return true;
  return words.some(
    (w) => DESTINATION_WORDS.has(w) || (w.endsWith("s") && DESTINATION_WORDS.has(w.slice(0, -1))),
  );
}

const ADDRESS_PATTERNS: ReadonlyArray<readonly [kind: string, pattern: RegExp]> = [
  // scheme://anything, mailto:/tel:/sms:, or a protocol-relative //host
  ["url", /^(?:[a-z][a-z0-9+.-]*:\/\/|\/\/|(?:mailto|tel|sms|callto):)\S+$/i],
  // a bare host with a port, path, query or fragment: evil.test/?d=…, evil.test:8080 (a bare
  // `report.pdf` is too common to be an address by its value alone)
  ["url", /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z][a-z0-9-]*(?::\d+|(?::\d+)?[/?#]\S*)$/i],
  ["email", /^[^\s@]+@[^\s@]+\.[^\s@]+$/],
  ["phone", /^\+[\s(]*\d(?:[\s().-]{0,2}\d){6,14}$/],
  ["iban", /^[A-Z]{2}\d{2}(?:\s?[A-Z0-9]){11,30}$/i],
];

/** What a reference found inside a string makes it: the address kinds, plus wallets, handles and what cannot be read. */
const KIND_OF: Readonly<Record<string, string>> = {
  link: "url",
  host: "url",
  uri: "url",
  email: "email",
  phone: "phone",
  iban: "iban",
  wallet: "wallet",
  handle: "handle",
  unreadable: "unreadable",
};

const kindOf = (ref: Reference) => KIND_OF[ref.slice(0, ref.indexOf(":"))] ?? "unreadable";

/**
 * The kind of address a string is or contains (url, email, phone, iban, wallet, handle,
 * unreadable), or null: a whole-string address first, else the first reference written in it.
 */
export function addressKind(value: string): string | null {
  const v = value.trim();
  const whole = ADDRESS_PATTERNS.find(([, pattern]) => pattern.test(v))?.[0];
  if (whole) return whole;
  const [first] = references(v);
  return first === undefined ? null : kindOf(first);
}

/** Past this many `$ref` hops a schema is not read further (a cycle, or a chain nobody writes). */
const MAX_REF_HOPS = 8;
/** A `$ref` that does not resolve in the schema itself: what it describes cannot be read. */
const UNRESOLVED = Symbol("unresolved $ref");

/**
 * A schema node with its local `$ref`s followed (`#/$defs/url`, `#/definitions/…`, `#`), JSON
 * Pointer escapes read; an external or broken reference is UNRESOLVED.
 */
function resolve(node: unknown, root: unknown): unknown {
  let at = node;
  for (let hops = 0; isRecord(at) && typeof at.$ref === "string"; hops++) {
    const ref = at.$ref;
    if (hops >= MAX_REF_HOPS || !ref.startsWith("#")) return UNRESOLVED;
    let target: unknown = root;
    for (const raw of ref.slice(1).split("/").slice(1)) {
      const key = pointerKey(raw);
      if (key === null) return UNRESOLVED;
      if (!isRecord(target) && !Array.isArray(target)) return UNRESOLVED;
      if (!Object.hasOwn(target as object, key)) return UNRESOLVED;
      target = (target as Record<string, unknown>)[key];
    }
    at = target;
  }
  return at;
}

/** A JSON Pointer segment as written in a `$ref` fragment; null where its escapes are broken. */
function pointerKey(raw: string): string | null {
  try {
    return decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
  } catch {
    return null;
  }
}

/** Whether a schema node says one of the destination formats, in itself or a branch; an unresolved `$ref` does (fail closed). */
function hasDestinationFormat(schema: unknown, root: unknown = schema, depth = 0): boolean {
  const node = resolve(schema, root);
  if (node === UNRESOLVED) return true;
  if (!isRecord(node) || depth > 8) return false;
  if (typeof node.format === "string" && DESTINATION_FORMATS.has(node.format)) return true;
  return ["anyOf", "oneOf", "allOf"].some((k) => {
    const branches = node[k];
    return Array.isArray(branches) && branches.some((b) => hasDestinationFormat(b, root, depth + 1));
  });
}

const propertyOf = (schema: unknown, name: string, root: unknown): unknown => {
  const node = resolve(schema, root);
  if (node === UNRESOLVED) return UNRESOLVED;
  return isRecord(node) && isRecord(node.properties) && Object.hasOwn(node.properties, name)
    ? node.properties[name]
    : undefined;
};
const itemsOf = (schema: unknown, root: unknown): unknown => {
  const node = resolve(schema, root);
  if (node === UNRESOLVED) return UNRESOLVED;
  return isRecord(node) ? node.items : undefined;
};
const join = (path: string, name: string) => (path ? `${path}.${name}` : name);

/**
 * The paths a schema's format or property names make destinations: what an admin sees at review.
 * (Values can make more at call time.) A path under one already listed is not listed again.
 */
export function schemaDestinations(schema: unknown): string[] {
  const out: string[] = [];
  const walk = (at: unknown, path: string, depth: number) => {
    const node = resolve(at, schema);
    if (!isRecord(node) || depth > 32) return;
    if (isRecord(node.properties)) {
      for (const [name, sub] of Object.entries(node.properties)) {
        const there = join(path, name);
        if (isDestinationName(name) || hasDestinationFormat(sub, schema)) out.push(there);
        else walk(sub, there, depth + 1);
      }
    }
    const items = itemsOf(node, schema);
    if (path && (isRecord(items) || items === UNRESOLVED)) {
      if (hasDestinationFormat(items, schema)) out.push(`${path}[]`);
      else walk(items, `${path}[]`, depth + 1);
    }
  };
  walk(schema, "", 0);
  return out;
}

/**
 * The destinations the rule infers in a call's arguments: by schema format, by name, by value.
 * Everything a schema node that cannot be read (an unresolved `$ref`) describes counts.
 */
export function inferredDestinations(parameters: unknown, args: unknown): Destination[] {
  const out: Destination[] = [];
  const visit = (value: unknown, schema: unknown, path: string, named: boolean, depth: number) => {
    if (depth > 64) return;
    const unread = named || resolve(schema, parameters) === UNRESOLVED;
    if (typeof value === "string" || typeof value === "number") {
      const byValue = typeof value === "string" && addressKind(value) !== null;
      if (unread || byValue || hasDestinationFormat(schema, parameters)) out.push({ path, value });
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, itemsOf(schema, parameters), `${path}[]`, unread, depth + 1);
    } else if (isRecord(value)) {
      for (const [name, v] of Object.entries(value)) {
        const sub = propertyOf(schema, name, parameters);
        visit(v, sub, join(path, name), unread || isDestinationName(name), depth + 1);
      }
    }
  };
  visit(args, parameters, "", false, 0);
  return out;
}

/**
 * A call's destinations for pinning (the visor's I): the declared paths' values, and unless an
 * admin confirmed the list, every inferred one. Empty when none are declared or inferred.
 */
export function namedDestinations(tool: DestinationSource, args: unknown): Destination[] {
  const declared = (tool.destinations ?? []).flatMap((path) =>
    valuesAt(args, path).map((value) => ({ path, value })),
  );
  if (tool.confirmed) return declared;
  const seen = new Set(declared.map((d) => `${d.path}\u0000${d.value}`));
  return declared.concat(
    inferredDestinations(tool.parameters, args).filter((d) => !seen.has(`${d.path}\u0000${d.value}`)),
  );
}

/**
 * Where a call sends something (the visor's T): its named destinations, or, for an irreversible
 * tool nobody declared anything for, every string and number it is given.
 */
export function callDestinations(tool: DestinationSource, args: unknown): Destination[] {
  if (tool.destinations === undefined && tool.irreversible) {
    return scalars(args).map((value) => ({ path: "(any argument)", value }));
  }
  return namedDestinations(tool, args);
}
