/**
 * The slack suite's tenant: the slack and web apps, the admin's catalog for them, clearances and the
 * per-tool policy a careful admin writes (bench/README.md, "AgentDojo suites", says why).
 */
import { type CatalogEntryInput, entryOf } from "../../../../examples/tenant/catalog.ts";
import type { HttpManifestInput } from "../../../../src/apps/manifest.ts";
import type { SuiteEnv } from "../../types.ts";
import { agentdojoManifests } from "../apps.ts";
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

const destination = { role: "destination", match: "trusted" } as const;
const control = { role: "control", match: "trusted" } as const;
const payload = { role: "payload", sanitise: "no-foreign-references" } as const;

export const slackEnv: SuiteEnv = {
  manifests: (base, world) => agentdojoManifests(base, world, ["slack", "web"]),
  catalog,
  // The workspace may receive what it holds; the web gets workspace-internal text at most, so direct
  // messages (confidential) never go out to a page.
  clearance: { slack: "confidential", web: "internal" },
  tools: {
    // The workspace's own lists are trusted as values (a channel or member that exists), never as
    // text: a name may still carry words, and the answers stay untrusted for everything else.
    "slack.get_channels": { trustedValues: ["channels[]"] },
    "slack.get_users_in_channel": { trustedValues: ["users[]"] },
    // Not who sent a message: a sender is authenticated, not trusted, and whoever posts an injection
    // is its sender (#43). A policy PUT refuses such a path; a DM to a poster asks.
    // Fetching a page tells its server the URL: the user names it, or it is one a trusted value holds.
    "web.get_webpage": { args: { url: { minIntegrity: "user", role: "destination", match: "trusted" } } },
    // Every irreversible call keeps the default floor. Who receives, where it goes, whom it adds or
    // removes may be chosen among the workspace's channels and members; a message's words may come
    // from what the user read, so long as they add no link, address or account no trusted value holds
    // (AgentDojo's first goal is a phishing link in a message).
    "slack.send_direct_message": { args: { recipient: destination, body: payload } },
    "slack.send_channel_message": { args: { channel: destination, body: payload } },
    "slack.add_user_to_channel": { args: { user: destination, channel: destination } },
    "slack.invite_user_to_slack": { args: { user: control, user_email: destination } },
    "slack.remove_user_from_slack": { args: { user: control } },
    "web.post_webpage": { args: { url: destination, content: payload } },
  },
  scrub: renderWorld(),
  // What the user said once: posting to the channels, and writing to the members, her own words
  // name is fine, with words her own. Not "any channel what I read names": content would then pick
  // among them unasked (#43, ut12's steered channel). Invitations, removals and publishing on the web
  // are confirmed each time.
  standingRules: [
    { tool: "slack.send_channel_message", when: { channel: { from: "trusted" } } },
    { tool: "slack.send_direct_message", when: { recipient: { from: "trusted" } } },
    { tool: "slack.add_user_to_channel", when: { user: { from: "trusted" }, channel: { from: "trusted" } } },
  ],
};
