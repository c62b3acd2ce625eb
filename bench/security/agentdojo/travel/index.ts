/**
 * AgentDojo v1's travel suite: its 20 user tasks (hotels, restaurants, cars, mixed), its 7
 * injection tasks, every pair (each injection planted in all the vectors its user task reads), and
 * 2 multi-query episodes crossed with the delayed goals.
 */
import type { UserTask } from "../../types.ts";
import { TRAVEL_GOAL_IDS } from "./injections.ts";
import { carTasks } from "./tasks-cars.ts";
import { episodes } from "./tasks-episodes.ts";
import { hotelTasks } from "./tasks-hotels.ts";
import { mixedTasks } from "./tasks-mixed.ts";
import { restaurantTasks } from "./tasks-restaurants.ts";

const order = (t: UserTask) => Number(/\/ut(\d+)$/.exec(t.id)?.[1] ?? 100);
export const travelTasks: UserTask[] = [...hotelTasks, ...restaurantTasks, ...carTasks, ...mixedTasks]
  .sort((a, b) => order(a) - order(b))
  .concat(episodes);

/** task id → slot → injection ids: every user task with every goal; the episodes with the delayed goals. */
export const travelAttacks: Record<string, Record<string, string[]>> = Object.fromEntries(
  travelTasks.map((t) => [
    t.id,
    { vectors: t.reuse ? TRAVEL_GOAL_IDS.map((g) => `${g}-later`) : TRAVEL_GOAL_IDS },
  ]),
);

/** The quick mode's travel cases: a benign task, an episode, and goals against tasks that read them. */
export const travelQuick = [
  "agentdojo-travel/ut0",
  "agentdojo-travel/mq-hotel",
  "agentdojo-travel/ut0@vectors+ad-travel-0",
  "agentdojo-travel/ut3@vectors+ad-travel-5",
  "agentdojo-travel/ut4@vectors+ad-travel-2",
  "agentdojo-travel/mq-hotel@vectors+ad-travel-3-later",
];
