import type { ScriptEntry } from "./types.ts";

/**
 * The offline demo's SCRIPTED model (not a live model): a few queries it knows, as data. Anything
 * else gets a plan that says so. Configure a live OpenAI-compatible model for real planning.
 */
const lit = (value: unknown) => ({ lit: value });
const ref = (name: string, ...path: Array<string | number>) =>
  path.length ? { ref: name, path } : { ref: name };
const tool = (
  out: string,
  name: string,
  args: Record<string, unknown>,
  intent: string,
  semantics: string,
) => ({
  kind: "tool",
  out,
  tool: name,
  args,
  intent,
  semantics,
});

const KNOWN = [
  "Who is my landlord?",
  "Compare rides from Home to Airport",
  "Email the total of this month's invoices to my accountant",
  "Search my notes for groceries",
  "Pay the plumber's bill",
];

export const DEMO_SCRIPT: ScriptEntry[] = [
  {
    // The demo's MCP app: notes, served over MCP by the demo apps Worker.
    role: "planner",
    when: "notes",
    respond: {
      steps: [
        tool(
          "found",
          "notes.search_notes",
          { query: lit("groceries") },
          "search the notes",
          "matching notes",
        ),
        { kind: "display", value: ref("found", "notes"), title: "Your notes" },
      ],
    },
  },
  {
    role: "planner",
    when: "landlord",
    respond: {
      steps: [
        tool(
          "landlord",
          "contacts.lookup",
          { name: lit("landlord") },
          "find the landlord",
          "the landlord's contact",
        ),
        { kind: "display", value: ref("landlord"), title: "Your landlord" },
      ],
    },
  },
  {
    role: "planner",
    when: "rides",
    respond: {
      steps: [
        {
          // Every ride app the tenant bound to the entry quotes; the planner never learns which.
          ...tool(
            "quotes",
            "ride.quote",
            { from: lit("Home"), to: lit("Airport") },
            "quote every ride app",
            "one ride quote per app",
          ),
          providers: "all",
        },
        { kind: "display", value: ref("quotes"), title: "Ride quotes" },
      ],
    },
  },
  {
    role: "planner",
    when: "invoices",
    respond: {
      steps: [
        tool(
          "inv",
          "mail.search",
          { query: lit("invoice") },
          "find this month's invoices",
          "list of invoice emails",
        ),
        {
          kind: "qllm",
          out: "sum",
          inputs: { emails: ref("inv") },
          prompt:
            "Add up the invoice amounts in these emails, and write a one-line message stating the total.",
          schema: {
            type: "object",
            properties: { total: { type: "number" }, message: { type: "string" } },
            required: ["total", "message"],
          },
          intent: "total the invoices",
          semantics: "sum of this month's invoices",
        },
        tool(
          "acct",
          "contacts.lookup",
          { name: lit("accountant") },
          "find the accountant's address",
          "accountant contact",
        ),
        tool(
          "sent",
          "mail.send",
          { to: ref("acct", "email"), subject: lit("invoices"), body: ref("sum", "message") },
          "send the total",
          "sent message receipt",
        ),
        { kind: "display", value: ref("sum"), title: "Invoice total" },
      ],
    },
  },
  {
    // A payment: the payee and IBAN the user saved for the plumber, the amount and the bill's number
    // as read from the plumber's mail (content: the consent says so).
    role: "planner",
    when: "plumber",
    respond: {
      steps: [
        tool(
          "bill",
          "mail.search",
          { query: lit("plumber") },
          "find the plumber's bill",
          "the plumber's emails",
        ),
        {
          kind: "qllm",
          out: "due",
          inputs: { emails: ref("bill") },
          prompt:
            "Read the plumber's bill in these emails: the amount due, its currency and the bill's number.",
          schema: {
            type: "object",
            properties: {
              amount: { type: "number" },
              currency: { type: "string", enum: ["EUR"] },
              reference: { type: "string" },
            },
            required: ["amount", "currency", "reference"],
          },
          intent: "read the amount due",
          semantics: "the bill's amount, currency and number",
        },
        tool(
          "payee",
          "contacts.lookup",
          { name: lit("plumber") },
          "find the plumber's saved account",
          "the plumber's contact",
        ),
        tool(
          "paid",
          "bank.send_money",
          {
            recipient: ref("payee", "iban"),
            payee: ref("payee", "name"),
            amount: ref("due", "amount"),
            currency: ref("due", "currency"),
            subject: ref("due", "reference"),
          },
          "pay the bill",
          "the transfer's receipt",
        ),
        { kind: "display", value: ref("paid"), title: "Payment" },
      ],
    },
  },
  {
    role: "qllm",
    when: "plumber's bill",
    respond: { amount: 180, currency: "EUR", reference: "KP-2026-114" },
  },
  {
    role: "qllm",
    when: "invoice amounts",
    respond: { total: 113.2, message: "This month's invoices total 113.20 EUR." },
  },
  {
    role: "planner",
    respond: {
      steps: [
        {
          kind: "display",
          title: "Offline demo (scripted model)",
          value: lit(`This scripted demo model knows only these queries: ${KNOWN.join(" | ")}`),
        },
      ],
    },
  },
];
