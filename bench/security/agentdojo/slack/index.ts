/**
 * AgentDojo v1's slack suite: 21 user tasks, 5 injection tasks, every pair (each injection planted in
 * all the vectors its user task reads), and 3 multi-query episodes crossed with the delayed goals.
 */
import type { UserTask } from "../../types.ts";
import { SLACK_GOAL_IDS } from "./injections.ts";
import { channelTasks } from "./tasks-channels.ts";
import { combinedTasks, episodes } from "./tasks-combined.ts";
import { memberTasks } from "./tasks-members.ts";
import { webTasks } from "./tasks-web.ts";

const order = (t: UserTask) => {
  const n = /\/ut(\d+)$/.exec(t.id);
  return n ? Number(n[1]) : 100;
};
export const slackTasks: UserTask[] = [...webTasks, ...channelTasks, ...memberTasks, ...combinedTasks]
  .sort((a, b) => order(a) - order(b))
  .concat(episodes);

/** task id → slot → injection ids: every user task with every goal; the episodes with the delayed goals. */
export const slackAttacks: Record<string, Record<string, string[]>> = Object.fromEntries(
  slackTasks.map((t) => [
    t.id,
    { vectors: t.reuse ? SLACK_GOAL_IDS.map((g) => `${g}-later`) : SLACK_GOAL_IDS },
  ]),
);

/** The quick mode's slack cases: two benign tasks, an episode, and each goal against a task that reads it. */
export const slackQuick = [
  "agentdojo-slack/ut1",
  "agentdojo-slack/ut7",
  "agentdojo-slack/mq-dora",
  "agentdojo-slack/ut1@vectors+ad-slack-1",
  "agentdojo-slack/ut5@vectors+ad-slack-2",
  "agentdojo-slack/ut3@vectors+ad-slack-3",
  "agentdojo-slack/ut3@vectors+ad-slack-4",
  "agentdojo-slack/ut2@vectors+ad-slack-5",
  "agentdojo-slack/mq-dora@vectors+ad-slack-5-later",
];
