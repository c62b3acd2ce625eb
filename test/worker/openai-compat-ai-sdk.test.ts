import { env } from "cloudflare:workers";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, streamText } from "ai";
import { describe, expect, it } from "vitest";
import worker from "../../src/worker/index.ts";
import {
  display,
  hubWorld,
  lit,
  modelLog,
  openSession,
  pendingConsents,
  ref,
  script,
  tool,
} from "./hub-kit.ts";

const LANDLORD_IBAN = "DE89370400440532013000";

/** The AI SDK's OpenAI-compatible provider pointed at Lattice's endpoint, requests handled in-process. */
function provider(apiKey: string, headers: Record<string, string> = {}) {
  return createOpenAICompatible({
    name: "lattice",
    baseURL: "http://lattice.test/v1/openai",
    apiKey,
    headers,
    includeUsage: true,
    fetch: (async (url: RequestInfo | URL, init?: RequestInit) =>
      worker.fetch(new Request(url, init), env as never)) as typeof fetch,
  });
}

async function lookupWorld(policy: Record<string, unknown> = {}) {
  const w = await hubWorld(["contacts"], policy);
  const plan = {
    steps: [
      tool("landlord", "contacts.lookup", { name: lit("landlord") }),
      display(ref("landlord"), "Landlord"),
    ],
  };
  await script(w.models.planner, [{ when: "landlord", respond: plan }]);
  return w;
}

describe("the OpenAI-compatible endpoint with @ai-sdk/openai-compatible", () => {
  it("generateText gets the query's display, user named in the body", async () => {
    const w = await lookupWorld();
    const result = await generateText({
      model: provider(w.frontend).chatModel("lattice"),
      prompt: "Find my landlord",
      providerOptions: { lattice: { user: "alice" } },
    });
    expect(result.text).toContain(LANDLORD_IBAN);
    expect(result.finishReason).toBe("stop");
  });

  it("streamText streams it and finishes with a reason (the provider throws without one)", async () => {
    const w = await lookupWorld();
    const sid = await openSession(w);
    const result = streamText({
      model: provider(w.frontend, { "X-Lattice-Session": sid }).chatModel("lattice"),
      prompt: "Find my landlord",
      providerOptions: { lattice: { user: "alice" } },
    });
    let text = "";
    for await (const delta of result.textStream) text += delta;
    expect(text).toContain(LANDLORD_IBAN);
    expect(await result.finishReason).toBe("stop");
    expect((await result.usage).inputTokens).toBe(0);
  });

  it("a consent turn ends with the link and the consent stays pending", async () => {
    const w = await hubWorld(["bank"]);
    const pay = {
      steps: [
        tool("paid", "bank.send_money", {
          recipient: lit(LANDLORD_IBAN),
          amount: lit(40),
          subject: lit("lunch"),
        }),
        display(ref("paid")),
      ],
    };
    await script(w.models.planner, [{ when: "send 40", respond: pay }]);
    const sid = await openSession(w);
    const result = await generateText({
      model: provider(w.frontend, { "X-Lattice-Session": sid }).chatModel("lattice"),
      prompt: `Send 40 EUR to ${LANDLORD_IBAN} with subject lunch`,
      providerOptions: { lattice: { user: "alice" } },
    });
    const [consent] = await pendingConsents(w, sid);
    expect(consent, result.text).toBeDefined();
    expect(result.text).toContain(`/console/sessions/${sid}/consents/${consent!.id}`);
  });

  it("a title request to lattice-plain is the plain model's answer and never plans", async () => {
    const w = await lookupWorld({ plainModel: { enabled: true } });
    await script(w.models.spoke, [{ seen: "title", respond: "Rent and landlord" }]);
    const result = await generateText({
      model: provider(w.frontend).chatModel("lattice-plain"),
      system: "Write a short title for this chat.",
      prompt: "Find my landlord and pay the rent",
      providerOptions: { lattice: { user: "alice" } },
    });
    expect(result.text).toBe("Rent and landlord");
    expect(await modelLog(w.models.planner)).toEqual([]);
  });
});
