/**
 * Destinations: the request paths where data, messages or money go (recipients, accounts, URLs,
 * phone numbers). Declared by the tenant's catalog entry, by a manifest's functionality and by each
 * agent tool; inferred-destinations.ts adds those an argument's format, name or value gives away.
 * A path is dotted property names with `[]` for every item of a list: `to`, `message.cc[]`,
 * `payee.account`.
 */
import { isRecord } from "./json.ts";

/** Does a destination path name a property the (object) JSON Schema declares? */
export function pathResolves(schema: unknown, path: string): boolean {
  let at: unknown = schema;
  for (const part of path.split(".")) {
    const list = part.endsWith("[]");
    const name = list ? part.slice(0, -2) : part;
    const props = isRecord(at) && isRecord(at.properties) ? at.properties : null;
    if (!props || !Object.hasOwn(props, name)) return false;
    at = props[name];
    if (list) {
      if (!isRecord(at) || !isRecord(at.items)) return false;
      at = at.items;
    }
  }
  return true;
}

/** What is at a path, every list item included; a missing path has nothing. */
export function at(value: unknown, path: string): unknown[] {
  let found: unknown[] = [value];
  for (const part of path.split(".")) {
    const list = part.endsWith("[]");
    const name = list ? part.slice(0, -2) : part;
    // `[]` alone (a leading one) takes the items of a list answer itself.
    if (name !== "") found = found.flatMap((v) => (isRecord(v) && Object.hasOwn(v, name) ? [v[name]] : []));
    if (list) found = found.flatMap((v) => (Array.isArray(v) ? v : []));
  }
  return found;
}

/** The scalar values (strings and numbers) at a path or anywhere below it: the fail-closed reading for a destination. */
export function valuesAt(value: unknown, path: string): Array<string | number> {
  return at(value, path).flatMap(scalars);
}

/** Only the strings and numbers exactly at a path: what `trustedValues` vouches for, never text inside an object. */
export function leavesAt(value: unknown, path: string): Array<string | number> {
  return at(value, path).filter((v): v is string | number => typeof v === "string" || typeof v === "number");
}

/** Every string and number inside a value, at any depth: the fail-closed reading of "undeclared". */
export function scalars(value: unknown): Array<string | number> {
  if (typeof value === "string" || typeof value === "number") return [value];
  if (Array.isArray(value)) return value.flatMap(scalars);
  if (isRecord(value)) return Object.values(value).flatMap(scalars);
  return [];
}
