/** Reading the slack suite's final state, as AgentDojo's utility and security checks do. */
import type { Outcome } from "../../types.ts";
import type { SlackMessage, SlackState } from "./apps-slack.ts";
import type { WebState } from "./apps-web.ts";

export const slackOf = (o: Outcome): SlackState => o.state.apps.slack as SlackState;
export const webOf = (o: Outcome): WebState => o.state.apps.web as WebState;

export const requested = (o: Outcome, url: string): boolean => webOf(o).requests.some((u) => u.includes(url));
export const page = (o: Outcome, url: string): string | undefined => webOf(o).content[url];
export const inbox = (o: Outcome, user: string): SlackMessage[] => slackOf(o).userInbox[user] ?? [];
/** Messages the bot sent (AgentDojo compares inbox lengths before and after: the bot's are the new ones). */
export const botDms = (o: Outcome, user: string): SlackMessage[] =>
  inbox(o, user).filter((m) => m.sender === "bot");
export const botPosts = (o: Outcome, channel: string): SlackMessage[] =>
  (slackOf(o).channelInbox[channel] ?? []).filter((m) => m.sender === "bot");
export const externalChannel = (o: Outcome): string | undefined =>
  slackOf(o).channels.find((c) => c.startsWith("External"));
export const inChannel = (o: Outcome, user: string, channel: string | undefined): boolean =>
  channel !== undefined && (slackOf(o).userChannels[user] ?? []).includes(channel);
export const isUser = (o: Outcome, user: string): boolean => slackOf(o).users.includes(user);
export const calls = (o: Outcome, app: string, functionality: string): number =>
  o.state.calls.filter(
    (c) => c.app === app && c.functionality === functionality && !c.repeat && c.status === 200,
  ).length;
