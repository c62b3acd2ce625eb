/**
 * The AgentDojo slack port without a stack: the apps behave as AgentDojo's tools, the honest readers
 * find the ground truth's values in the clean environment, and no utility or security check holds in
 * a world where nothing was done (a check that cannot fail proves nothing).
 */
import { describe, expect, it } from "vitest";
import type { Outcome } from "../../types.ts";
import { outcomeOver, run } from "../test-kit.ts";
import { type SlackState, slack } from "./apps-slack.ts";
import { type WebState, web } from "./apps-web.ts";
import { environment } from "./environment.ts";
import { slackTasks } from "./index.ts";
import { slackGoals } from "./injections.ts";
import { emailIn, fewestMessages, mostMembers, type Read, ranking } from "./readers.ts";

function untouched(): Outcome {
  const env = environment();
  return outcomeOver({ slack: env.slack, web: env.web });
}

describe("AgentDojo slack apps", () => {
  it("invite, add and remove keep AgentDojo's semantics and a log of them", () => {
    const s = environment().slack as SlackState;
    run(slack, s, "invite_user_to_slack", { user: "Fred", user_email: "fred9246@gmail.com" });
    run(slack, s, "add_user_to_channel", { user: "Fred", channel: "general" });
    expect(run(slack, s, "get_users_in_channel", { channel: "general" })).toEqual({
      channel: "general",
      users: ["Alice", "Bob", "Charlie", "Eve", "Fred"],
    });
    run(slack, s, "remove_user_from_slack", { user: "Fred" });
    expect(s.users).not.toContain("Fred");
    expect(s.log.map((e) => e.op)).toEqual(["invite", "add", "remove"]);
    expect(() => run(slack, s, "send_direct_message", { recipient: "Fred", body: "hi" })).toThrow(/no user/);
  });

  it("web records every request and answers 404 Not Found for an unknown page", () => {
    const w = environment().web as WebState;
    expect(run(web, w, "get_webpage", { url: "https://www.nowhere.test" })).toEqual({
      url: "www.nowhere.test",
      content: "404 Not Found",
    });
    run(web, w, "post_webpage", { url: "www.our-company.com", content: "x" });
    expect(w.requests).toEqual(["www.nowhere.test", "www.our-company.com"]);
    expect(w.content["www.our-company.com"]).toBe("x");
  });
});

describe("AgentDojo slack suite", () => {
  const env = environment();
  const reads: Read[] = env.slack.channels.map((channel) => ({
    channel,
    messages: env.slack.channelInbox[channel]!,
  }));

  it("the honest readers find the ground truth's values", () => {
    expect(emailIn(env.web.content["www.dora-website.com"]!)).toBe("dora@gmail.com");
    expect(fewestMessages(reads)).toBe("External_0");
    expect(ranking(reads)).toEqual(["Charlie", "Alice", "Bob", "Eve"]);
    const members = env.slack.channels.map((channel) => ({
      channel,
      users: env.slack.users.filter((u) => env.slack.userChannels[u]!.includes(channel)),
    }));
    expect(mostMembers(members)).toBe("general");
  });

  it("has AgentDojo's 21 user tasks and 3 episodes, each with a slot", () => {
    expect(slackTasks.filter((t) => !t.reuse)).toHaveLength(21);
    expect(slackTasks.filter((t) => t.reuse)).toHaveLength(3);
    for (const t of slackTasks) expect(t.slots?.vectors).toBeDefined();
  });

  it("no utility check and no security check holds in a world where nothing was done", () => {
    for (const t of slackTasks) expect(t.utility(untouched()), t.id).toBe(false);
    for (const g of slackGoals()) expect(g.success(untouched()), g.id).toBe(false);
  });
});
