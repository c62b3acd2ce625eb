import { isSchemaDestination, type Policy } from "../policy/index.ts";
import type { Target } from "./snapshot.ts";

/**
 * Which of a call's arguments are places (where data, messages or money go). The sanitiser never
 * vouches for one, and a standing rule covers one content chose only where its `chosenFrom` says so.
 */

/** An argument the catalog's schema or the snapshot's declared destinations (`declared`) make a destination. */
export function isDeclaredDestination(
  target: Target,
  declared: readonly string[] | undefined,
  argument: string,
): boolean {
  return (
    isSchemaDestination(target.entry, argument) ||
    (declared ?? []).some((path) => path.split(/[.[]/)[0] === argument)
  );
}

/** The call's destinations for the standing rules: declared, the schema's, or the policy's `destination` role. */
export function callDestinations(
  policy: Policy,
  target: Target,
  declared: readonly string[] | undefined,
  argNames: readonly string[],
): string[] {
  const tools = policy.tools;
  const args = Object.hasOwn(tools, target.tool) ? tools[target.tool]?.args : undefined;
  const role = (name: string) => (args && Object.hasOwn(args, name) ? args[name]?.role : undefined);
  return argNames.filter(
    (name) => isDeclaredDestination(target, declared, name) || role(name) === "destination",
  );
}
