/**
 * The OpenAI-compatible endpoint with the `openai` SDK against `npm start`: the demo query ends its
 * turn on the consent, with a link to answer it; after the answer the next turn shows the outcome.
 * Run: npx node examples/frontends/openai.ts (this example answers through the REST API itself).
 */
import OpenAI from "openai";
import { DEMO_QUERY, demoEnv } from "./demo-env.ts";

const { api, key } = demoEnv();
const client = new OpenAI({ apiKey: key, baseURL: `${api}/v1/openai`, maxRetries: 0 });
const ask = async (text: string, session?: string) => {
  const { data, response } = await client.chat.completions
    .create(
      { model: "lattice", user: "example-user", messages: [{ role: "user", content: text }] },
      session ? { headers: { "X-Lattice-Session": session } } : {},
    )
    .withResponse();
  return { completion: data, session: response.headers.get("X-Lattice-Session")! };
};

const first = await ask(DEMO_QUERY);
console.log(first.completion.choices[0]?.message.content);
const lattice = (first.completion as unknown as { lattice: { consents?: Array<{ id: string }> } }).lattice;
for (const consent of lattice.consents ?? []) {
  await fetch(`${api}/v1/sessions/${first.session}/consents/${consent.id}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify({ decision: "allow" }),
  });
}
const next = await ask("done", first.session);
console.log(next.completion.choices[0]?.message.content);
