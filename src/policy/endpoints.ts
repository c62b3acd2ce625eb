/**
 * Endpoint policies: what a tool argument, a tool call and the display accept, and the label a
 * tool's output starts from. Resolution order for an argument: the tenant's per-argument policy,
 * then its per-functionality policy, then the secure defaults of DESIGN.md.
 */
import { type CatalogEntry, defaultClearance } from "./context.ts";
import { schemaDestinations } from "./inferred-destinations.ts";
import { ownGet } from "./json.ts";
import { type Label, minConfidentiality, normalizeLabel, type Requirement } from "./labels.ts";
import { highest, type Lattices } from "./lattice.ts";
import type { Policy, ToolPolicy } from "./policy-schema.ts";

function toolPolicy(policy: Policy, tool: string): ToolPolicy | undefined {
  return ownGet(policy.tools, tool);
}

/**
 * The clearance the admin gave the app. A missing catalog entry (never valid after validation)
 * fails closed to the bottom; an entry without a clearance gets the default.
 */
export function clearanceOf(l: Lattices, entry: CatalogEntry | undefined): string {
  if (!entry) return l.confidentiality.bottom;
  return entry.clearance || defaultClearance(l);
}

/** Default integrity floor: the top for an irreversible functionality (or an unknown one), else the bottom. */
function defaultFloor(l: Lattices, entry: CatalogEntry | undefined): string {
  return entry?.irreversible === false ? l.integrity.bottom : l.integrity.top;
}

/** The top-level arguments a request schema makes destinations, read once per schema. */
const destinationArgs = new WeakMap<object, ReadonlySet<string>>();

/** The top-level arguments `requestSchema` makes destinations (by `format` or name). */
export function schemaDestinationArgs(requestSchema: Readonly<Record<string, unknown>>): ReadonlySet<string> {
  let names = destinationArgs.get(requestSchema);
  if (!names) {
    names = new Set(schemaDestinations(requestSchema).map((path) => path.split(/[.[]/)[0]!));
    destinationArgs.set(requestSchema, names);
  }
  return names;
}

/**
 * Whether the catalog's schema makes `arg` a destination (by `format` or name: a URL, an address, an
 * account). Such an argument gets the top floor by default, reversible tools too: opening or
 * fetching a link content chose tells its author what the user holds, and a tool-wide relaxation
 * (`minInputIntegrity`) is about words, not places. Only the argument's own `minIntegrity` lowers it.
 */
export function isSchemaDestination(entry: CatalogEntry | undefined, arg: string): boolean {
  return entry !== undefined && schemaDestinationArgs(entry.requestSchema).has(arg);
}

/**
 * The arguments a policy sanitises though their tool's request schema makes them destinations. The
 * sanitiser vouches for words that name no foreign place; a destination *is* a place, so it never
 * vouches there (the gate ignores it) and a policy PUT or catalog PUT that pairs them is refused
 * rather than left to fail quietly at run time.
 */
export function sanitisedDestinations(
  policy: Policy,
  requestSchemas: ReadonlyMap<string, Readonly<Record<string, unknown>>>,
): Array<{ tool: string; arg: string }> {
  const found: Array<{ tool: string; arg: string }> = [];
  for (const [tool, tp] of Object.entries(policy.tools)) {
    const schema = requestSchemas.get(tool);
    if (!schema) continue;
    const destinations = schemaDestinationArgs(schema);
    for (const [arg, ap] of Object.entries(tp.args ?? {})) {
      if (ap.sanitise && destinations.has(arg)) found.push({ tool, arg });
    }
  }
  return found;
}

/**
 * What argument `arg` of `tool` accepts. The clearance also caps any policy value: API.md makes
 * it the most the app may ever receive, so a tool policy can tighten it but not lift it.
 */
export function argumentRequirement(
  policy: Policy,
  l: Lattices,
  tool: string,
  entry: CatalogEntry | undefined,
  arg: string,
): Requirement {
  const tp = toolPolicy(policy, tool);
  const ap = ownGet(tp?.args, arg);
  const clearance = clearanceOf(l, entry);
  return {
    maxConfidentiality: minConfidentiality(
      l,
      ap?.maxConfidentiality ?? tp?.maxInputConfidentiality ?? clearance,
      clearance,
    ),
    minIntegrity:
      ap?.minIntegrity ??
      (isSchemaDestination(entry, arg) ? l.integrity.top : (tp?.minInputIntegrity ?? defaultFloor(l, entry))),
  };
}

/**
 * What the call itself accepts: the pc flows into it, since whether (and how often) a tool is
 * called tells the app something, and an irreversible action steered by untrusted data is the
 * attack. Per-functionality policy, then defaults; per-argument policies do not apply.
 */
export function callRequirement(
  policy: Policy,
  l: Lattices,
  tool: string,
  entry: CatalogEntry | undefined,
): Requirement {
  const tp = toolPolicy(policy, tool);
  const clearance = clearanceOf(l, entry);
  return {
    maxConfidentiality: minConfidentiality(l, tp?.maxInputConfidentiality ?? clearance, clearance),
    // `steerable`: content may decide whether it runs; its arguments keep their floors.
    minIntegrity: tp?.steerable ? l.integrity.bottom : (tp?.minInputIntegrity ?? defaultFloor(l, entry)),
  };
}

/**
 * What the pc must meet at a call that passes `args`. An argument takes only the pc's
 * confidentiality (`sinkLabel`), so unless the tenant made the call `steerable` its pc is held
 * here to the strictest floor among them as well: a branch or loop on content must not decide
 * whether, or how often, values the tenant guards reach the app (a transfer paid once per item a
 * page lists). A steerable call's pc meets only the call's own floor.
 */
export function pcRequirement(
  policy: Policy,
  l: Lattices,
  tool: string,
  call: Requirement,
  args: Iterable<Requirement>,
): Requirement {
  if (toolPolicy(policy, tool)?.steerable) return call;
  const floors = [call.minIntegrity, ...[...args].map((a) => a.minIntegrity)];
  return {
    maxConfidentiality: call.maxConfidentiality,
    minIntegrity: highest(l.integrity, floors, call.minIntegrity),
  };
}

/**
 * The label a tool's output starts from, before its inputs and pc are joined in: the tenant's
 * `output` override, else the confidentiality the app declares and the bottom integrity (an app
 * cannot vouch for what it returns).
 */
export function outputBaseline(
  policy: Policy,
  l: Lattices,
  tool: string,
  entry: CatalogEntry | undefined,
): Label {
  const override = toolPolicy(policy, tool)?.output;
  return normalizeLabel(l, {
    confidentiality: override?.confidentiality ?? entry?.output.confidentiality ?? l.confidentiality.top,
    integrity: override?.integrity ?? l.integrity.bottom,
  });
}

/** The display accepts everything (top confidentiality) unless the policy caps it; it demands no integrity. */
export function displayRequirement(policy: Policy, l: Lattices): Requirement {
  return {
    maxConfidentiality: policy.display.maxConfidentiality ?? l.confidentiality.top,
    minIntegrity: l.integrity.bottom,
  };
}
