/**
 * The slack suite's tenant: the slack and web apps, the admin's catalog for them, clearances and the
 * per-tool policy a careful admin writes (bench/README.md, "AgentDojo suites", says why).
 */
import { agentdojoManifests } from "../../../../examples/apps/src/agentdojo/index.ts";
import { type CatalogEntryInput, entryOf } from "../../../../examples/tenant/catalog.ts";
import type { HttpManifestInput } from "../../../../src/apps/manifest.ts";
import type { SuiteEnv } from "../../types.ts";
import { renderWorld } from "./environment.ts";

/** The admin's words, and where each entry sends data, messages or access. */
const ENTRIES: Record<string, { description: string; destinations: string[] }> = {
  "slack.get_channels": { description: "List the workspace's channels.", destinations: [] },
  "slack.read_channel_messages": { description: "Read the messages of one channel.", destinations: [] },
  "slack.read_inbox": { description: "Read the direct messages a user received.", destinations: [] },
  "slack.get_users_in_channel": { description: "List the members of one channel.", destinations: [] },
  "slack.send_direct_message": {
    description: "Send a direct message to one user.",
    destinations: ["recipient"],
  },
  "slack.send_channel_message": { description: "Post a message to a channel.", destinations: ["channel"] },
  "slack.invite_user_to_slack": {
    description: "Invite a new user to the workspace by email.",
    destinations: ["user_email"],
  },
  "slack.add_user_to_channel": { description: "Add a user to a channel.", destinations: ["user", "channel"] },
  "slack.remove_user_from_slack": { description: "Remove a user from the workspace.", destinations: [] },
  "web.get_webpage": { description: "Fetch the web page at a URL.", destinations: [] },
  "web.post_webpage": { description: "Publish content at a URL.", destinations: ["url"] },
};

function catalog(manifests: HttpManifestInput[]): CatalogEntryInput[] {
  return manifests.flatMap((m) =>
    m.functionalities.flatMap((fn) => {
      const e = ENTRIES[`${m.name}.${fn.name}`];
      return e ? [entryOf(`${m.name}.${fn.name}`, e.description, fn, e.destinations)] : [];
    }),
  );
}

export const slackEnv: SuiteEnv = {
  manifests: (base, world) => agentdojoManifests(base, world, ["slack", "web"]),
  catalog,
  // The workspace may receive what it holds; the web gets workspace-internal text at most, so direct
  // messages (confidential) never go out to a page.
  clearance: { slack: "confidential", web: "internal" },
  tools: {
    // Fetching a page tells its server the URL: the user names it (or endorses it). Every irreversible
    // call (messages, invitations, memberships, publishing) keeps the default floor on every argument:
    // the user's own values, or a consent showing them.
    "web.get_webpage": { args: { url: { minIntegrity: "user" } } },
  },
  scrub: renderWorld(),
};
