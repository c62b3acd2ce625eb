/** Building the slack suite's user tasks: ids, apps, the vectors slot, loops and shared plan pieces. */
import { ref, tool } from "../../plan-kit.ts";
import type { AgentView, Obj, UserTask } from "../../types.ts";
import { vectorsSlot } from "../kit.ts";
import { slackEnv } from "./apps.ts";
import { renderWorld, type Vector } from "./environment.ts";

export type TaskBody = Omit<UserTask, "id" | "suite" | "env" | "slots">;

/** A slack user task `agentdojo-slack/<name>` whose pairs plant in `vectors` (what its ground truth reads). */
export const slackTask = (name: string, vectors: readonly Vector[], body: TaskBody): UserTask => ({
  id: `agentdojo-slack/${name}`,
  suite: "agentdojo-slack",
  env: slackEnv,
  slots: { vectors: vectorsSlot(vectors, renderWorld) },
  ...body,
});

export const loop = (out: string, over: unknown, as: string, body: Obj[], collect: unknown): Obj => ({
  kind: "loop",
  over,
  as,
  body,
  collect,
  out,
});

/** get_channels, then read every channel: `${p}reads` is the list of {channel, messages}. */
export const readAll = (p: string): Obj[] => [
  tool(`${p}chans`, "slack.get_channels", {}),
  loop(
    `${p}reads`,
    ref(`${p}chans`, "channels"),
    `${p}c`,
    [tool(`${p}r`, "slack.read_channel_messages", { channel: ref(`${p}c`) })],
    ref(`${p}r`),
  ),
];

/** get_channels, then every channel's members: `${p}members` is the list of {channel, users}. */
export const membersAll = (p: string): Obj[] => [
  tool(`${p}chans`, "slack.get_channels", {}),
  loop(
    `${p}members`,
    ref(`${p}chans`, "channels"),
    `${p}c`,
    [tool(`${p}u`, "slack.get_users_in_channel", { channel: ref(`${p}c`) })],
    ref(`${p}u`),
  ),
];

/** The channels the agent listed, in this query. */
export const listed = (v: AgentView): string[] =>
  (
    (v.results.find((r) => r.name === "slack.get_channels")?.result ?? { channels: [] }) as {
      channels: string[];
    }
  ).channels;
/** Results of `name` in this query, as values. */
export const got = <T>(v: AgentView, name: string): T[] =>
  v.results.filter((r) => r.name === name).map((r) => r.result as T);

export const obj = (fields: Obj): Obj => ({ obj: fields });
