import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, inject, it } from "vitest";

// The integration docs' examples, run as a reader would (`npx node examples/frontends/<name>.ts`)
// against the stack `npm start` runs, so the docs cannot drift from what works.
const run = async (name: string) => {
  const { api, demo } = inject("stack");
  const env = { ...process.env, LATTICE_URL: api, LATTICE_FRONTEND_KEY: demo.keys.frontend };
  const { stdout } = await promisify(execFile)(process.execPath, [`examples/frontends/${name}.ts`], {
    env,
    timeout: 60_000,
  });
  return stdout;
};

describe("the integration examples", () => {
  it("typed-client.ts asks, answers the consent and prints the result", async () => {
    const out = await run("typed-client");
    expect(out).toMatch(/^consent asked: irreversible for mail\.send/m);
    expect(out).toMatch(/^status: completed$/m);
  });

  it("openai.ts ends the turn on the consent link, then shows the outcome", async () => {
    const out = await run("openai");
    expect(out).toMatch(/\/console\/sessions\/ses_[a-f0-9]{32}\/consents\//);
    expect(out, out).toMatch(/✓ Done: the e-mail to “[^”]+” was sent\./);
  });

  it("ai-sdk.ts gets the consent as a tool approval and finishes after approving", async () => {
    const out = await run("ai-sdk");
    expect(out).toMatch(/^tool mail\.send: approval-requested$/m);
    expect(out, out).toMatch(/^approval asked: /m);
    expect(out, out).toMatch(/^status: completed$/m);
  });
});
