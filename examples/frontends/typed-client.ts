/**
 * The typed client's demo flow against `npm start`: open a session, ask the demo query, show the
 * consent it asks with the hub's assessment, answer it, print the result. Run: npx node examples/frontends/typed-client.ts
 * (this example answers "allow" itself; a real frontend asks its user).
 */
import { createLattice } from "../../clients/typescript/src/index.ts";
import { DEMO_QUERY, demoEnv } from "./demo-env.ts";

const { api, key } = demoEnv();
const lattice = createLattice({ baseUrl: api, key });
const session = await lattice.openSession("example-user");
const query = await lattice.askAndWait(session.id, DEMO_QUERY, (consent) => {
  console.log(`consent asked: ${consent.kind} for ${consent.functionality} → ${consent.to ?? "?"}`);
  console.log(`  data: ${JSON.stringify(consent.data)}`);
  console.log(`  assessment: ${consent.assessment.verdict} ${consent.assessment.reasons.join("; ")}`);
  return { decision: "allow", scope: "once" };
});
console.log(`status: ${query.status}`);
for (const item of query.display) {
  console.log(`${item.title ?? "-"}: ${item.redacted ? "[withheld]" : JSON.stringify(item.value)}`);
}
