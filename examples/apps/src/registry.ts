import { AGENTDOJO_APP_NAMES, AGENTDOJO_APPS } from "../../../bench/security/agentdojo/apps.ts";
import { bank } from "./apps/bank.ts";
import { calendar } from "./apps/calendar.ts";
import { chat } from "./apps/chat.ts";
import { cheapcab } from "./apps/cheapcab.ts";
import { contacts } from "./apps/contacts.ts";
import { drive } from "./apps/drive.ts";
import { health } from "./apps/health.ts";
import { inboxpilot } from "./apps/inboxpilot.ts";
import { mail } from "./apps/mail.ts";
import { misbehave } from "./apps/misbehave.ts";
import { swiftride } from "./apps/swiftride.ts";
import { travel } from "./apps/travel.ts";
import { writer } from "./apps/writer.ts";
import type { DemoApp } from "./kit.ts";

/** Every demo app, keyed by its name (the key must equal the app's `name`). */
export const APPS = {
  mail,
  drive,
  contacts,
  calendar,
  bank,
  swiftride,
  cheapcab,
  travel,
  health,
  writer,
  chat,
  inboxpilot,
  misbehave,
};

export type DemoAppName = keyof typeof APPS;
export const DEMO_APP_NAMES = Object.keys(APPS) as DemoAppName[];

/** Every app a world keeps state for: the demo apps and the AgentDojo suites' apps. */
export const WORLD_APP_NAMES: readonly string[] = [...DEMO_APP_NAMES, ...AGENTDOJO_APP_NAMES];

/** The app called `name`, if any (own keys only: a URL segment like "constructor" is no app). */
export function appByName(name: string): DemoApp<unknown> | undefined {
  if (Object.hasOwn(APPS, name)) return APPS[name as DemoAppName];
  return Object.hasOwn(AGENTDOJO_APPS, name)
    ? (AGENTDOJO_APPS[name as keyof typeof AGENTDOJO_APPS] as DemoApp<unknown>)
    : undefined;
}
