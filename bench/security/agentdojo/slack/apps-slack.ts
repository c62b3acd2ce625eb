/**
 * A Slack workspace as AgentDojo v1's slack suite has it (its nine tools, same behaviour): users,
 * channels, who is in which, channel and direct-message inboxes. The seed is an empty workspace: the
 * security benchmark writes AgentDojo's environment into each world. `log` keeps the membership
 * changes in order, so a check can see a user invited, added and removed again (AgentDojo reads its
 * traces for that).
 */
import { AppError, arr, type DemoApp, obj, op, str } from "../../../../examples/apps/src/kit.ts";

export interface SlackMessage {
  sender: string;
  recipient: string;
  body: string;
}

export interface SlackState {
  users: string[];
  channels: string[];
  userChannels: Record<string, string[]>;
  userInbox: Record<string, SlackMessage[]>;
  channelInbox: Record<string, SlackMessage[]>;
  log: Array<{ op: "invite" | "add" | "remove"; user: string; channel?: string; email?: string }>;
}

const seed = (): SlackState => ({
  users: [],
  channels: [],
  userChannels: {},
  userInbox: {},
  channelInbox: {},
  log: [],
});

const message = obj({ sender: str("Who wrote it"), recipient: str("Channel or user"), body: str("Text") });
const noUser = (user: string) => new AppError(404, "not_found", `no user ${JSON.stringify(user)}`);
const noChannel = (c: string) => new AppError(404, "not_found", `no channel ${JSON.stringify(c)}`);

export const slack: DemoApp<SlackState> = {
  name: "slack",
  version: "1.0.0",
  description: "Slack: the company's team workspace. Channels, direct messages, members and invitations.",
  seed,
  ops: {
    get_channels: op({
      description: "List the workspace's channels.",
      request: obj({}),
      response: obj({ channels: arr(str("Channel name")) }),
      // Channel names are chosen by whoever creates a channel, external guests included: no integrity.
      output: { confidentiality: "internal" },
      run: (s: SlackState) => ({ channels: s.channels }),
    }),
    read_channel_messages: op({
      description: "Read the messages of a channel.",
      request: obj({ channel: str("Channel name") }),
      response: obj({ channel: str("Channel name"), messages: arr(message) }),
      // What members post in channels: workspace-internal, written by anyone in it.
      output: { confidentiality: "internal" },
      run: (s: SlackState, { channel }: { channel: string }) => {
        if (!s.channels.includes(channel)) throw noChannel(channel);
        return { channel, messages: s.channelInbox[channel] ?? [] };
      },
    }),
    read_inbox: op({
      description: "Read the direct messages one user received.",
      request: obj({ user: str("User name") }),
      response: obj({ user: str("User name"), messages: arr(message) }),
      // Direct messages are private to their two ends.
      output: { confidentiality: "confidential" },
      run: (s: SlackState, { user }: { user: string }) => {
        if (!s.users.includes(user)) throw noUser(user);
        return { user, messages: s.userInbox[user] ?? [] };
      },
    }),
    get_users_in_channel: op({
      description: "List the members of a channel.",
      request: obj({ channel: str("Channel name") }),
      response: obj({ channel: str("Channel name"), users: arr(str("User name")) }),
      output: { confidentiality: "internal" },
      run: (s: SlackState, { channel }: { channel: string }) => {
        if (!s.channels.includes(channel)) throw noChannel(channel);
        return { channel, users: s.users.filter((u) => s.userChannels[u]?.includes(channel)) };
      },
    }),
    send_direct_message: op({
      destinations: ["recipient"],
      description: "Send a direct message to one user, as the workspace's assistant bot.",
      request: obj({ recipient: str("User name"), body: str("Message text", { minLength: 1 }) }),
      response: obj({ sent: { const: true } }),
      irreversible: true,
      output: { confidentiality: "internal" },
      run: (s: SlackState, { recipient, body }: { recipient: string; body: string }) => {
        if (!s.users.includes(recipient)) throw noUser(recipient);
        s.userInbox[recipient] = [...(s.userInbox[recipient] ?? []), { sender: "bot", recipient, body }];
        return { sent: true };
      },
    }),
    send_channel_message: op({
      destinations: ["channel"],
      description: "Post a message to a channel, as the workspace's assistant bot.",
      request: obj({ channel: str("Channel name"), body: str("Message text", { minLength: 1 }) }),
      response: obj({ sent: { const: true } }),
      irreversible: true,
      output: { confidentiality: "internal" },
      run: (s: SlackState, { channel, body }: { channel: string; body: string }) => {
        if (!s.channels.includes(channel)) throw noChannel(channel);
        s.channelInbox[channel] = [
          ...(s.channelInbox[channel] ?? []),
          { sender: "bot", recipient: channel, body },
        ];
        return { sent: true };
      },
    }),
    invite_user_to_slack: op({
      destinations: ["user_email"],
      description: "Invite a new user to the workspace by email.",
      request: obj({ user: str("The new user's name"), user_email: str("Their email address") }),
      response: obj({ invited: { const: true } }),
      irreversible: true,
      output: { confidentiality: "internal" },
      run: (s: SlackState, { user, user_email }: { user: string; user_email: string }) => {
        if (s.users.includes(user)) throw new AppError(409, "exists", `user ${user} already exists`);
        s.users.push(user);
        s.userInbox[user] = [];
        s.userChannels[user] = [];
        s.log.push({ op: "invite", user, email: user_email });
        return { invited: true };
      },
    }),
    add_user_to_channel: op({
      destinations: ["user"],
      description: "Add a workspace user to a channel: they can read all of it from then on.",
      request: obj({ user: str("User name"), channel: str("Channel name") }),
      response: obj({ added: { const: true } }),
      irreversible: true,
      output: { confidentiality: "internal" },
      run: (s: SlackState, { user, channel }: { user: string; channel: string }) => {
        if (!s.users.includes(user)) throw noUser(user);
        if (!s.channels.includes(channel)) throw noChannel(channel);
        const mine = s.userChannels[user] ?? [];
        if (!mine.includes(channel)) s.userChannels[user] = [...mine, channel];
        s.log.push({ op: "add", user, channel });
        return { added: true };
      },
    }),
    remove_user_from_slack: op({
      description: "Remove a user from the workspace.",
      request: obj({ user: str("User name") }),
      response: obj({ removed: { const: true } }),
      irreversible: true,
      output: { confidentiality: "internal" },
      run: (s: SlackState, { user }: { user: string }) => {
        if (!s.users.includes(user)) throw noUser(user);
        s.users = s.users.filter((u) => u !== user);
        delete s.userInbox[user];
        delete s.userChannels[user];
        s.log.push({ op: "remove", user });
        return { removed: true };
      },
    }),
  },
};
