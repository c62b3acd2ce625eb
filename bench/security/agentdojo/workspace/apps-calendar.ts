/**
 * The user's calendar of AgentDojo v1's workspace suite (calendar_client.py) as the app
 * `workcalendar`: today's date, search and day views, and creating, cancelling, rescheduling and
 * inviting to events. Seeded empty; the benchmark writes AgentDojo's environment in.
 *
 * AgentDojo also files an e-mail in the inbox for every invitation, cancellation and rescheduling;
 * here the calendar app cannot write the mail app's state, so those notices are not filed (the
 * suite's README says so). A search that finds nothing answers an empty list (AgentDojo raises).
 */
import { AppError, arr, bool, type DemoApp, obj, op, str } from "../../../../examples/apps/src/kit.ts";
import { nextIdOf } from "./apps-mail.ts";

export interface WorkEvent {
  id: string;
  title: string;
  description: string;
  /** "YYYY-MM-DD HH:MM" */
  start_time: string;
  end_time: string;
  location: string | null;
  participants: string[];
  all_day: boolean;
  status: "confirmed" | "canceled";
}
export interface WorkCalendarState {
  account: string;
  currentDay: string;
  events: WorkEvent[];
}

const time = str("Date and time, YYYY-MM-DD HH:MM", { pattern: "^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}$" });
const day = str("Date, YYYY-MM-DD", { pattern: "^\\d{4}-\\d{2}-\\d{2}$" });
const addresses = (d: string) => arr(str("E-mail address"), d);
const event = obj({
  id: str("Event id"),
  title: str("Title"),
  description: str("Description"),
  start_time: str("Start, YYYY-MM-DD HH:MM"),
  end_time: str("End, YYYY-MM-DD HH:MM"),
  location: { type: ["string", "null"], description: "Where (null if nowhere)" },
  participants: addresses("Participants (the user among them)"),
  all_day: bool("All day"),
  status: str("confirmed or canceled"),
});
const events = obj({ events: arr(event) });

/** Minutes since the epoch of "YYYY-MM-DD HH:MM" (as UTC: only differences matter). */
const minutes = (t: string) => Date.parse(`${t.replace(" ", "T")}:00Z`) / 60000;
const at = (m: number) => new Date(m * 60000).toISOString().slice(0, 16).replace("T", " ");
const byId = (st: WorkCalendarState, id: string) => {
  const e = st.events.find((x) => x.id === id);
  if (!e) throw new AppError(404, "not_found", `Event with ID '${id}' not found.`);
  return e;
};
const onDay = (st: WorkCalendarState, d: string) => st.events.filter((e) => e.start_time.startsWith(d));
const has = (text: string, q: string) => text.toLowerCase().includes(q.toLowerCase());

export const workcalendar: DemoApp<WorkCalendarState> = {
  name: "workcalendar",
  version: "1.0.0",
  description:
    "Calendar: the user's work calendar; find, create, cancel and reschedule events, invite people.",
  seed: () => ({ account: "", currentDay: "", events: [] }),
  ops: {
    get_current_day: op({
      description: "Today's date, YYYY-MM-DD.",
      request: obj({}),
      response: obj({ day }),
      output: { confidentiality: "public" },
      run: (st: WorkCalendarState) => ({ day: st.currentDay }),
    }),
    search_calendar_events: op({
      description: "Events whose title or description contains the query, optionally on one day.",
      request: obj({ query: str("Words to find"), date: day }, ["date"]),
      response: events,
      // Invitations others send land here: titles and descriptions are written by anyone.
      output: { confidentiality: "internal" },
      run: (st: WorkCalendarState, a: { query: string; date?: string }) => ({
        events: (a.date === undefined ? st.events : onDay(st, a.date)).filter(
          (e) => has(e.title, a.query) || has(e.description, a.query),
        ),
      }),
    }),
    get_day_calendar_events: op({
      description: "The events on one day.",
      request: obj({ day }),
      response: events,
      output: { confidentiality: "internal" },
      run: (st: WorkCalendarState, a: { day: string }) => ({ events: onDay(st, a.day) }),
    }),
    create_calendar_event: op({
      description:
        "Create an event in the user's calendar; every participant is sent an invitation by e-mail.",
      request: obj(
        {
          title: str("Title"),
          start_time: time,
          end_time: time,
          description: str("Description"),
          participants: addresses("Invited (the user is always in)"),
          location: str("Where"),
        },
        ["description", "participants", "location"],
      ),
      response: event,
      // Invitations go out by e-mail, and the entry is what the user plans her day by.
      irreversible: true,
      destinations: ["participants"],
      output: { confidentiality: "internal" },
      run: (
        st: WorkCalendarState,
        a: {
          title: string;
          start_time: string;
          end_time: string;
          description?: string;
          participants?: string[];
          location?: string;
        },
      ) => {
        const e: WorkEvent = {
          id: nextIdOf(st.events),
          title: a.title,
          description: a.description ?? "",
          start_time: a.start_time,
          end_time: a.end_time,
          location: a.location ?? null,
          participants: [...new Set([...(a.participants ?? []), st.account])],
          all_day: false,
          status: "confirmed",
        };
        st.events.push(e);
        return e;
      },
    }),
    cancel_calendar_event: op({
      description: "Cancel the event with the given id; its participants are told by e-mail.",
      request: obj({ event_id: str("Event id") }),
      response: obj({ canceled: str("The canceled event's id") }),
      irreversible: true,
      output: { confidentiality: "internal" },
      run: (st: WorkCalendarState, a: { event_id: string }) => {
        byId(st, a.event_id).status = "canceled";
        return { canceled: a.event_id };
      },
    }),
    reschedule_calendar_event: op({
      description:
        "Move an event to a new start (and end; without one it keeps its length); participants are told by e-mail.",
      request: obj({ event_id: str("Event id"), new_start_time: time, new_end_time: time }, ["new_end_time"]),
      response: event,
      irreversible: true,
      output: { confidentiality: "internal" },
      run: (
        st: WorkCalendarState,
        a: { event_id: string; new_start_time: string; new_end_time?: string },
      ) => {
        const e = byId(st, a.event_id);
        const length = minutes(e.end_time) - minutes(e.start_time);
        e.start_time = a.new_start_time;
        e.end_time = a.new_end_time ?? at(minutes(a.new_start_time) + length);
        return e;
      },
    }),
    add_calendar_event_participants: op({
      description: "Invite more people to an event; they are sent the event by e-mail.",
      request: obj({ event_id: str("Event id"), participants: addresses("Who to add") }),
      response: event,
      irreversible: true,
      destinations: ["participants"],
      output: { confidentiality: "internal" },
      run: (st: WorkCalendarState, a: { event_id: string; participants: string[] }) => {
        const e = byId(st, a.event_id);
        e.participants.push(...a.participants);
        return e;
      },
    }),
  },
};
