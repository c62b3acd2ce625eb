/**
 * AgentDojo v1's workspace suite: its 40 user tasks (calendar, e-mail, drive, and across them), its
 * 6 injection tasks, every pair (each injection planted in all the vectors its user task reads), and
 * the multi-query episodes crossed with the delayed goals.
 */
import type { UserTask } from "../../types.ts";
import { WORKSPACE_GOAL_IDS } from "./injections.ts";
import { tasksB } from "./tasks-b-all.ts";
import { calendarTasks } from "./tasks-calendar.ts";
import { episodes as episodesB } from "./tasks-episodes.ts";
import { mailTasks } from "./tasks-mail.ts";
import { mixedTasks } from "./tasks-mixed.ts";

const order = (t: UserTask) => Number(/\/ut(\d+)$/.exec(t.id)?.[1] ?? 100);
const single: UserTask[] = [...calendarTasks, ...mailTasks, ...mixedTasks, ...tasksB];
const episodes: UserTask[] = [...episodesB];

export const workspaceTasks: UserTask[] = single.sort((a, b) => order(a) - order(b)).concat(episodes);

/** task id → slot → injection ids: every user task with every goal; the episodes with the delayed goals. */
export const workspaceAttacks: Record<string, Record<string, string[]>> = Object.fromEntries(
  workspaceTasks.map((t) => [
    t.id,
    { vectors: t.reuse ? WORKSPACE_GOAL_IDS.map((g) => `${g}-later`) : WORKSPACE_GOAL_IDS },
  ]),
);

/** The quick mode's workspace cases: a benign task, an episode, and goals against tasks that read them. */
export const workspaceQuick = [
  "agentdojo-workspace/ut0",
  "agentdojo-workspace/ut0@vectors+ad-workspace-0",
  "agentdojo-workspace/ut8@vectors+ad-workspace-2",
  "agentdojo-workspace/mq-packing",
];
