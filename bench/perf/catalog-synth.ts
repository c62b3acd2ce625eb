/**
 * The synthetic world of bench/perf/catalog-growth.ts: a deterministic catalog of any size
 * (realistic names such as crm.contacts_search, admin-style descriptions, request and response
 * schemas of 2–8 properties, some nested), one serving app per domain, a long session, and the
 * small plan the scripted planner answers. Changing anything here changes the "before" figures.
 */
import type { CatalogEntry } from "../../src/apps/catalog.ts";
import type { ArtifactMetadata, ServingAppInfo } from "../../src/contracts.ts";
import { parsePolicy } from "../../src/policy/index.ts";

// --- a deterministic synthetic catalog ---

let seed = 16;
const rand = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

/** domain: its five kinds of record. */
const DOMAINS = Object.fromEntries(
  `crm contacts deals accounts leads notes|billing invoices payments refunds plans coupons
  |hr employees leaves reviews positions benefits|tickets issues comments queues macros tags
  |inventory items stock warehouses suppliers orders|shipping shipments labels carriers returns rates
  |docs documents folders templates signatures versions|calendar events rooms availability reminders calendars
  |analytics reports dashboards metrics segments exports|wiki pages spaces attachments links drafts
  |tasks tasks projects milestones boards timesheets|expenses claims receipts policies cards budgets
  |marketing campaigns audiences emails forms assets|chat channels messages threads members files
  |payroll runs payslips taxes deductions bonuses|travel trips flights hotels cars visas
  |security users roles keys audits sessions|storage buckets objects snapshots quotas shares
  |legal contracts matters clauses approvals holds|support articles chats surveys agents slas
  |assets devices licenses loans repairs locations|procurement requests quotes vendors catalogs receipts
  |learning courses enrolments quizzes certificates paths|facilities desks visitors parking incidents cleanings
  |sales quotes territories forecasts commissions targets`
    .split("|")
    .map((line) => line.trim().split(/\s+/))
    .map(([domain, ...nouns]) => [domain!, nouns]),
);
/** verb: its description (of {d} domain, {n} records) and whether it cannot be undone. */
const VERBS: Record<string, [string, boolean]> = {
  search: ["Search the {n} of the {d} by keyword, owner or status; returns the matching {n}.", false],
  get: ["Read one of the {d} {n} by id, with its details and history.", false],
  list: ["List the {d} {n}, newest first, optionally filtered by status and date.", false],
  create: ["Create a new record among the {d} {n} with the given fields.", true],
  update: ["Change fields of one of the {d} {n}; only the given fields change.", true],
  delete: ["Delete one of the {d} {n} permanently.", true],
  export: ["Export the {d} {n} matching a filter as a CSV file and return its link.", false],
  assign: ["Assign one of the {d} {n} to a person, who is notified by email.", true],
};
const EXTRA = [
  " Only the user's own workspace is visible.",
  " Dates are in the tenant's time zone.",
  " Results are paged: pass the cursor from the previous answer.",
  "",
  "",
];

const str = { type: "string" };
const closed = (properties: Record<string, unknown>, required: string[]) => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});
const FIELDS: Array<[string, Record<string, unknown>]> = [
  ["id", str],
  ["query", { type: "string", minLength: 1 }],
  ["limit", { type: "integer", minimum: 1, maximum: 100 }],
  ["status", { type: "string", enum: ["open", "pending", "closed"] }],
  ["owner", { type: "string", format: "email", description: "The owner's work address." }],
  ["since", { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$" }],
  ["amount", { type: "number", exclusiveMinimum: 0 }],
  ["currency", { type: "string", enum: ["EUR", "USD", "GBP"] }],
  ["tags", { type: "array", items: str, maxItems: 20 }],
  ["note", { type: "string", maxLength: 2000, description: "Free text shown to the team." }],
  ["cursor", str],
  ["priority", { type: "integer", minimum: 1, maximum: 5 }],
  [
    "filter",
    closed({ field: str, op: { type: "string", enum: ["eq", "lt", "gt"] }, value: str }, ["field", "value"]),
  ],
  ["address", closed({ street: str, city: str, country: str }, ["city"])],
];

/** 2–8 properties, some nested; a search's or list's answer is a page of such records. */
function object(list: boolean): Record<string, unknown> {
  const props: Record<string, unknown> = {};
  const count = 2 + Math.floor(rand() * 7);
  while (Object.keys(props).length < count) {
    const [name, schema] = pick(FIELDS);
    props[name] = schema;
  }
  const shape = closed(
    props,
    Object.keys(props).filter(() => rand() < 0.5),
  );
  return list ? closed({ items: { type: "array", items: shape }, next: str }, ["items"]) : shape;
}

/** The two entries the measured query needs, in every catalog. */
const NEEDED: CatalogEntry[] = [
  {
    name: "crm.deals_search",
    description: "Search the CRM's deals by company name, owner or stage; returns the matching deals.",
    request: closed({ company: { type: "string", minLength: 1 }, stage: { enum: ["open", "won", "lost"] } }, [
      "company",
    ]),
    response: closed(
      {
        deals: {
          type: "array",
          items: closed({ id: str, title: str, amount: { type: "number" }, stage: str }, ["id", "title"]),
        },
      },
      ["deals"],
    ),
    irreversible: false,
    output: { confidentiality: "internal" },
    destinations: [],
  },
  {
    name: "mail.send",
    description: "Send an email from the user's mailbox.",
    request: closed({ to: { type: "string", format: "email" }, subject: str, body: str }, [
      "to",
      "subject",
      "body",
    ]),
    response: closed({ id: str, sent: { const: true } }, ["id", "sent"]),
    irreversible: true,
    output: { confidentiality: "internal" },
    destinations: ["to"],
  },
];

export function catalogOf(size: number): CatalogEntry[] {
  seed = 16;
  const names: Array<[string, string, string]> = [];
  for (const verb of Object.keys(VERBS))
    for (const [d, nouns] of Object.entries(DOMAINS)) for (const n of nouns) names.push([d, n, verb]);
  // Shuffled, so a small catalog spans several domains as a real one would.
  for (let i = names.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [names[i], names[j]] = [names[j]!, names[i]!];
  }
  const entries = [...NEEDED];
  for (const [d, n, verb] of names) {
    if (entries.length >= size) break;
    if (entries.some((e) => e.name === `${d}.${n}_${verb}`)) continue;
    const [text, irreversible] = VERBS[verb]!;
    const description = text.replaceAll("{d}", d.toUpperCase()).replaceAll("{n}", n) + pick(EXTRA);
    const request = object(false);
    const response = object(verb === "search" || verb === "list");
    entries.push({
      name: `${d}.${n}_${verb}`,
      description,
      request,
      response,
      irreversible,
      output: { confidentiality: "internal" },
      destinations: [],
    });
  }
  return entries;
}

/** One serving app per domain, each functionality bound to its entry. */
export function appsOf(catalog: readonly CatalogEntry[]): ServingAppInfo[] {
  const byApp = new Map<string, CatalogEntry[]>();
  for (const e of catalog) {
    const app = e.name.slice(0, e.name.indexOf("."));
    byApp.set(app, [...(byApp.get(app) ?? []), e]);
  }
  return [...byApp].map(([app, entries]) => {
    const fn = (e: CatalogEntry) => e.name.slice(app.length + 1);
    const functionalities = entries.map((e) => ({
      ...e,
      name: fn(e),
      output: { confidentiality: "internal" },
    }));
    const manifest = {
      name: `${app}-co`,
      description: `${app} service`,
      version: "1.0.0",
      endpoint: `https://${app}.test`,
      functionalities,
    };
    const bindings = Object.fromEntries(entries.map((e) => [fn(e), e.name]));
    return {
      appId: `app_${app}`,
      name: `${app}-co`,
      version: 1,
      clearance: "confidential",
      manifest,
      bindings,
    };
  });
}

// --- the session and the plan ---

export const QUERY =
  "Find the open deals for Acme Corp in the CRM and email a summary of them to dana@example.com";
export const EARLIER = [
  "What is on my calendar tomorrow?",
  "Summarise the open support tickets assigned to me and group them by priority.",
  `Draft a reply to the supplier about the late order: ${"the shipment was promised for Monday and ".repeat(12)}please confirm.`,
  "List the invoices that are overdue by more than 30 days.",
  "Who owns the Globex account?",
  "Book a room for the design review on Thursday afternoon.",
  `Here are my notes from the meeting, keep them in mind: ${"budget, hiring, roadmap, risks; ".repeat(25)}`,
  "Export last month's expense claims.",
  "How many leads came in this week?",
  "Remind me what the Acme contract says about renewals.",
  "Show my open tasks.",
  "Which deals closed last quarter?",
];
export const ARTIFACTS: ArtifactMetadata[] = Array.from({ length: 5 }, (_, i) => ({
  id: `art_${i}`,
  name: `summary${i}`,
  schema: closed({ summary: str, items: { type: "array", items: str }, total: { type: "number" } }, [
    "summary",
  ]),
  intent: "summarise what the user asked about",
  semantics: `summary of earlier query ${i}`,
  query: EARLIER[i]!,
  label: { confidentiality: "internal", integrity: "untrusted" },
  sessionId: "s",
  queryId: `q${i}`,
  plannedIn: "catalog",
  createdAt: "2026-01-01T00:00:00.000Z",
}));
const tool = (out: string, name: string, args: object) => ({
  kind: "tool",
  out,
  tool: name,
  args,
  intent: "i",
  semantics: "s",
});
export const PLAN = JSON.stringify({
  steps: [
    tool("deals", "crm.deals_search", { company: { lit: "Acme Corp" }, stage: { lit: "open" } }),
    {
      kind: "qllm",
      out: "sum",
      inputs: { deals: { ref: "deals" } },
      prompt: "Summarise these deals.",
      schema: closed({ body: str }, ["body"]),
      intent: "i",
      semantics: "s",
    },
    tool("sent", "mail.send", {
      to: { lit: "dana@example.com" },
      subject: { lit: "Acme" },
      body: { ref: "sum", path: ["body"] },
    }),
    { kind: "display", value: { ref: "sum", path: ["body"] } },
  ],
});

// As the demo tenant relaxes it: a mail body may carry what a model read.
const parsed = parsePolicy({
  planning: { mode: "catalog" },
  consent: { dataShare: false },
  tools: { "mail.send": { args: { body: { minIntegrity: "untrusted" } } } },
});
if (!parsed.ok) throw new Error(JSON.stringify(parsed.details));
export const POLICY = parsed.policy;
