/**
 * A real query's pending consent carries the view a person reads, over HTTP: a payment whose IBAN
 * came from an app's answer, named as that answer, called out when it only looks like the saved
 * payee's (a Cyrillic letter), and quiet when it is exactly the saved payee's (the control: the
 * same consent without the lookalike shows no warning).
 */
import { describe, expect, it } from "vitest";
import type { ConsentView } from "../../src/runtime/consent-view.ts";
import { demoApps, worldState } from "./demo.ts";
import {
  ask,
  type CatalogEntryInput,
  hubWorld,
  lit,
  mirrorCatalog,
  openSession,
  pendingConsents,
  ref,
  script,
  settle,
  tool,
} from "./hub-kit.ts";

/** The landlord's IBAN, as the user's scheduled rent transfer (a trusted value) holds it. */
const SAVED = "DE89370400440532013000";
/** The same, with a Cyrillic Е for the E: on screen it is the landlord's IBAN. */
const FORGED = "D\u041589370400440532013000";

const catalog = (): CatalogEntryInput[] =>
  mirrorCatalog(["bank", "inboxpilot"]).map((e) =>
    e.name === "inboxpilot.pay_invoice"
      ? { ...e, view: { kind: "payment", iban: "recipient", amount: "amount" } }
      : e,
  );

const PLAN = {
  steps: [
    tool("payees", "bank.list_scheduled", {}),
    tool("tx", "bank.transactions", { limit: lit(1) }),
    tool("paid", "inboxpilot.pay_invoice", {
      recipient: ref("tx", "transactions", 0, "iban"),
      amount: lit(1250),
    }),
  ],
};

/** Asks to pay the newest transaction's IBAN, after planting that transaction in the bank. */
async function payNewest(iban: string) {
  const w = await hubWorld(
    ["bank", "inboxpilot"],
    {
      planning: { mode: "catalog" },
      tools: {
        "bank.list_scheduled": { trustedValues: ["scheduled[].recipient"] },
        // What lets a bill's IBAN through to the user's confirmation at all: the consent is the check.
        "inboxpilot.pay_invoice": { args: { recipient: { minIntegrity: "untrusted" } } },
      },
    },
    {},
    { catalog: catalog() },
  );
  const bank = (await worldState(w.world)).apps.bank as { history: Array<Record<string, unknown>> };
  const bill = {
    id: "t9",
    date: "2026-11-30",
    amountCents: -125000,
    counterparty: "Morgan Lee",
    iban,
    subject: "Rent",
  };
  const put = await demoApps().fetch(`http://apps/w/${w.world}/_demo/state/bank`, {
    method: "PUT",
    body: JSON.stringify({ ...bank, history: [...bank.history, bill] }),
  });
  expect(put.status).toBe(200);
  await script(w.models.planner, [{ respond: PLAN }]);
  const sid = await openSession(w);
  const q = await settle(w, sid, await ask(w, sid, "Pay my landlord's rent of 1250 EUR"));
  expect(q.status, JSON.stringify(q)).toBe("awaiting_consent");
  const [consent] = (await pendingConsents(w, sid)) as unknown as Array<{
    view?: ConsentView;
    data: unknown;
  }>;
  return consent!;
}

describe("consent view over HTTP", () => {
  it("calls out a bill's IBAN with a Cyrillic letter against the saved payee's, naming its source", async () => {
    const consent = await payNewest(FORGED);
    const view = consent.view!;
    expect(view.kind).toBe("payment");
    const field = view.fields.find((f) => f.name === "iban")!;
    expect(field.value).toBe(FORGED);
    expect(field.sources).toEqual([{ kind: "app", apps: ["bank"], words: "bank's answer" }]);
    expect(field.highlight).toBe(true);
    const near = field.warnings.find((w) => w.code === "near_trusted_value");
    expect(near?.message).toContain("bank.list_scheduled's answer");
    expect(near?.visible).toBe(`D[Cyrillic \u0415]89370400440532013000`);
    expect(view.warnings).toBeGreaterThanOrEqual(1);
    expect(view.fields.find((f) => f.name === "amount")?.sources[0]?.kind).toBe("user");
  });

  it("control: the saved payee's exact IBAN from the same answer carries no lookalike warning", async () => {
    const consent = await payNewest(SAVED);
    const field = consent.view!.fields.find((f) => f.name === "iban")!;
    expect(field.value).toBe(SAVED);
    // No lookalike warning; still content's pick among the saved ones, and said so (#43).
    expect(field.warnings.map((w) => w.code)).toEqual(["not_your_words"]);
    expect(field.warnings[0]?.message).toMatch(/chosen by content you read, among \d+ of your values/);
    // Without the view both consents' data read the same to a person: only the view tells them apart.
    expect(JSON.stringify(consent.data)).toContain(SAVED);
  });
});
