/**
 * The suites trust only values the user or an app's own bookkeeping wrote, never an author (#43):
 * every suite's policy passes a PUT, and the workspace's contacts vouch only for the addresses she
 * wrote to herself, not for the senders of the injections in her inbox.
 */
import { describe, expect, it } from "vitest";
import { parseNewPolicy, trustedLeaves } from "../../../src/policy/index.ts";
import { slackEnv } from "./slack/apps.ts";
import { travelEnv } from "./travel/apps.ts";
import { workspaceEnv } from "./workspace/apps.ts";
import { workcontacts } from "./workspace/apps-mail.ts";
import { environment } from "./workspace/environment.ts";

const SUITES = { slack: slackEnv, travel: travelEnv, workspace: workspaceEnv };
/** Senders of the inbox's injected mails (inbox.ts: ids 27–29, 31, 32). */
const INJECTORS = [
  "info@best-event-organizers.com",
  "security-facebook-com@gmail.com",
  "hiking-travels-unlimited@homail.com",
  "tech-services-password@aol.com",
];

describe("AgentDojo suites: trustedValues", () => {
  for (const [name, env] of Object.entries(SUITES)) {
    it(`${name}: its tool policy passes a policy PUT (no path through a sender or author)`, () => {
      const put = parseNewPolicy({ tools: env.tools });
      expect(put.ok ? [] : put.details).toEqual([]);
    });
  }

  it("control: the slack policy as it was (messages[].sender) is refused at PUT", () => {
    const before = { ...slackEnv.tools, "slack.read_inbox": { trustedValues: ["messages[].sender"] } };
    const put = parseNewPolicy({ tools: before });
    expect(put.ok).toBe(false);
  });

  it("workspace: contacts vouch only for addresses she wrote to, never an injection's sender", () => {
    const world = environment();
    const op = workcontacts.ops.search_contacts_by_email as unknown as {
      run: (s: unknown, a: { query: string }) => unknown;
    };
    const all = op.run(world.workcontacts, { query: "@" });
    const paths = (workspaceEnv.tools["workcontacts.search_contacts_by_email"] as { trustedValues: string[] })
      .trustedValues;
    const vouched = trustedLeaves(all, paths);
    expect(vouched).toContain("sarah.baker@gmail.com");
    expect(vouched).toContain("david.smith@bluesparrowtech.com");
    for (const sender of INJECTORS) expect(vouched).not.toContain(sender);
    // Written to her, never by her: not saved either.
    expect(vouched).not.toContain("lily.white@gmail.com");
    // Control: the path the suite trusted before (every contact) vouches for each injector.
    const before = trustedLeaves(all, ["contacts[].email"]);
    for (const sender of INJECTORS) expect(before).toContain(sender);
  });
});
