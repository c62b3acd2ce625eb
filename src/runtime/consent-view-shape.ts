import { VIEW_ROLES, type ViewShapeKind } from "../apps/catalog-view.ts";
import { isRecord } from "../policy/index.ts";

/**
 * Which shape a call's consent takes and which request path fills each role: the catalog entry's
 * declared `view` when there is one, else one inferred from the request schema's property names and
 * formats (`iban`, `amount` → a payment; `to` with `subject` or `body` → a mail), else `action`. Pure.
 */

export interface Shape {
  kind: ViewShapeKind | "action";
  /** role → request path, in the kind's role order. */
  roles: Array<[role: string, path: string]>;
}

/** A person's label for each role when the schema gives no title. */
export const ROLE_LABELS: Readonly<Record<string, string>> = {
  to: "To",
  cc: "Cc",
  subject: "Subject",
  body: "Message",
  payee: "Payee",
  iban: "IBAN",
  amount: "Amount",
  currency: "Currency",
  reference: "Reference",
  from: "From",
  when: "When",
  what: "What",
  with: "With",
};

/** Property names (lower case, without `_` and `-`) and formats that suggest a role. */
const HINTS: Readonly<
  Record<ViewShapeKind, Readonly<Record<string, { names: RegExp; formats?: RegExp; patterns?: RegExp }>>>
> = {
  payment: {
    // An IBAN's pattern starts with a country code and two check digits.
    iban: {
      names: /^(iban|account|accountnumber|bankaccount|creditoriban)$/,
      formats: /^iban$/,
      patterns: /\[A-Z\]\{2\}\[0-9\]\{2\}/,
    },
    amount: { names: /^(amount|sum|total|value)$/ },
    payee: { names: /^(payee|beneficiary|creditor|recipientname|payeename|name)$/ },
    currency: { names: /^currency$/ },
    reference: { names: /^(reference|memo|remittance|purpose|description)$/ },
  },
  mail: {
    to: { names: /^(to|recipient|recipients|email|emailaddress)$/, formats: /^(idn-)?email$/ },
    cc: { names: /^(cc|bcc)$/ },
    subject: { names: /^(subject|title)$/ },
    body: { names: /^(body|message|text|content)$/ },
  },
  share: {
    what: { names: /^(what|file|document|item|resource|artifact|data)$/ },
    with: { names: /^(with|sharewith|grantee|recipient|recipients)$/ },
  },
  booking: {
    from: { names: /^(from|origin|pickup|departure|start)$/ },
    to: { names: /^(to|destination|dropoff|arrival|end)$/ },
    when: { names: /^(when|date|time|datetime|at|pickuptime|departuretime)$/, formats: /^date(-time)?$/ },
    what: { names: /^(what|service|room|seats|item|product)$/ },
  },
};

/** Each kind's least set of roles an inferred shape needs, any one of the alternatives. */
const NEEDS: ReadonlyArray<[ViewShapeKind, ReadonlyArray<readonly string[]>]> = [
  ["payment", [["iban"], ["amount", "payee"]]],
  [
    "mail",
    [
      ["to", "subject"],
      ["to", "body"],
    ],
  ],
  ["share", [["what", "with"]]],
  [
    "booking",
    [
      ["from", "to"],
      ["when", "from"],
      ["when", "to"],
    ],
  ],
];

function properties(schema: unknown): Record<string, unknown> {
  return isRecord(schema) && isRecord(schema.properties) ? schema.properties : {};
}

/** The roles `kind`'s hints find among the schema's top-level properties, each property used once. */
function inferRoles(kind: ViewShapeKind, schema: unknown): Map<string, string> {
  const found = new Map<string, string>();
  const used = new Set<string>();
  for (const role of VIEW_ROLES[kind]) {
    const hint = HINTS[kind][role];
    if (!hint) continue;
    for (const [name, prop] of Object.entries(properties(schema))) {
      if (used.has(name)) continue;
      const format = isRecord(prop) && typeof prop.format === "string" ? prop.format : "";
      const pattern = isRecord(prop) && typeof prop.pattern === "string" ? prop.pattern : "";
      if (
        hint.names.test(name.toLowerCase().replace(/[_-]/g, "")) ||
        (hint.formats?.test(format) ?? false) ||
        (hint.patterns?.test(pattern) ?? false)
      ) {
        found.set(role, name);
        used.add(name);
        break;
      }
    }
  }
  return found;
}

export function shapeOf(declared: Readonly<Record<string, string>> | undefined, schema: unknown): Shape {
  const kind = declared?.kind;
  if (kind && Object.hasOwn(VIEW_ROLES, kind)) {
    const k = kind as ViewShapeKind;
    return {
      kind: k,
      roles: VIEW_ROLES[k].flatMap((r) =>
        typeof declared[r] === "string" ? [[r, declared[r]] as [string, string]] : [],
      ),
    };
  }
  for (const [k, needs] of NEEDS) {
    const roles = inferRoles(k, schema);
    if (needs.some((set) => set.every((r) => roles.has(r)))) {
      return {
        kind: k,
        roles: VIEW_ROLES[k].flatMap((r) => (roles.has(r) ? [[r, roles.get(r)!] as [string, string]] : [])),
      };
    }
  }
  return { kind: "action", roles: [] };
}

/** The schema's `title` for a request path, if it gives one. */
export function titleAt(schema: unknown, path: string): string | null {
  let at: unknown = schema;
  for (const part of path.split(".")) {
    const list = part.endsWith("[]");
    at = properties(at)[list ? part.slice(0, -2) : part];
    if (list) at = isRecord(at) ? at.items : undefined;
  }
  return isRecord(at) && typeof at.title === "string" && at.title.trim()
    ? at.title.trim().slice(0, 80)
    : null;
}
