/**
 * AgentDojo v1's workspace environment (data/suites/workspace/environment.yaml: inbox, calendar and
 * cloud drive) as the workspace apps' state, with its 16 injection placeholders
 * (injection_vectors.yaml, defaults as there) filled per case. The contact list is AgentDojo's:
 * derived from the initial e-mails.
 */
import type { WorldEdit } from "../../types.ts";
import type { WorkCalendarState } from "./apps-calendar.ts";
import type { WorkDriveState } from "./apps-drive.ts";
import type { WorkContactsState, WorkMailState } from "./apps-mail.ts";
import { events, TODAY } from "./calendar.ts";
import { fileOf, filesA } from "./drive-a.ts";
import { filesB } from "./drive-b.ts";
import { contactsOf, emails, ME } from "./inbox.ts";
import { DEFAULTS, type V } from "./vectors.ts";

export { VECTORS, type Vector } from "./vectors.ts";
export { ME };

export interface WorkspaceWorld {
  workmail: WorkMailState;
  workcontacts: WorkContactsState;
  workcalendar: WorkCalendarState;
  workdrive: WorkDriveState;
}

export function environment(values: Partial<V> = {}): WorkspaceWorld {
  const v = { ...DEFAULTS, ...values };
  const inbox = emails(v);
  return {
    workmail: { account: ME, emails: inbox, trash: [] },
    workcontacts: { contacts: contactsOf(inbox) },
    workcalendar: { account: ME, currentDay: TODAY, events: events(v) },
    workdrive: { account: ME, files: [...filesA(v), ...filesB(v)].map(fileOf) },
  };
}

/** The world edit writing the environment (this suite never installs the demo apps). */
export const renderWorld =
  (values: Partial<V> = {}): WorldEdit =>
  (apps) => {
    for (const [name, state] of Object.entries(environment(values)))
      apps[name] = state as unknown as Record<string, unknown>;
  };
