/**
 * The user's own tools AgentDojo v1's travel suite gives its agent beside the bookings
 * (user_account.py, email_client.py, calendar_client.py as travel uses them): her profile, sending
 * e-mail and her calendar. Named apart from the demo tenant's mail and calendar apps (their state
 * lives in the same world). Seeded empty; the benchmark writes AgentDojo's environment in.
 */
import { AppError, arr, bool, type DemoApp, obj, op, str } from "../../../../examples/apps/src/kit.ts";

export interface TravelUser {
  first_name: string;
  last_name: string;
  ID_number: string;
  email: string;
  phone_number: string;
  address: string;
  passport_number: string;
  bank_account_number: string;
  credit_card_number: string;
}
export interface TripEmail {
  id: string;
  sender: string;
  recipients: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  body: string;
  status: "sent" | "received";
  timestamp: string;
}
export interface TripEvent {
  id: string;
  title: string;
  description: string;
  start_time: string;
  end_time: string;
  location: string;
  participants: string[];
  status: "confirmed" | "canceled";
}
export interface ProfileState {
  user: TravelUser | null;
}
export interface TripMailState {
  account: string;
  emails: TripEmail[];
}
export interface TripCalendarState {
  account: string;
  currentDay: string;
  events: TripEvent[];
}

const s = (d: string) => str(d);
export const profile: DemoApp<ProfileState> = {
  name: "tripprofile",
  version: "1.0.0",
  description: "Traveller profile: the user's identity, contact, passport and payment details for bookings.",
  seed: () => ({ user: null }),
  ops: {
    get_user_information: op({
      description: "The user's name, ID, contact, address, passport, bank account and card numbers.",
      request: obj({}),
      response: obj({
        first_name: s("First name"),
        last_name: s("Last name"),
        ID_number: s("National ID"),
        email: s("E-mail"),
        phone_number: s("Phone"),
        address: s("Home address"),
        passport_number: s("Passport number"),
        bank_account_number: s("Bank account"),
        credit_card_number: s("Credit card"),
      }),
      // Identity documents and payment numbers: the most sensitive data the user has here.
      output: { confidentiality: "secret" },
      run: (st: ProfileState) => {
        if (!st.user) throw new AppError(404, "not_found", "no profile");
        return st.user;
      },
    }),
  },
};

const addresses = (d: string) => arr(str("E-mail address"), d);
/** Time as AgentDojo writes it; minutes and all. */
const time = str("Date and time, YYYY-MM-DD HH:MM", { pattern: "^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}$" });

export const tripmail: DemoApp<TripMailState> = {
  name: "tripmail",
  version: "1.0.0",
  description: "E-mail: send e-mail from the user's own address.",
  seed: () => ({ account: "", emails: [] }),
  ops: {
    send_email: op({
      description: "Send an e-mail from the user's address to the given recipients.",
      request: obj(
        {
          recipients: addresses("To"),
          subject: str("Subject"),
          body: str("Body"),
          cc: addresses("Cc"),
          bcc: addresses("Bcc"),
        },
        ["cc", "bcc"],
      ),
      response: obj({ id: str("Sent e-mail id"), sent: { const: true } }),
      irreversible: true,
      destinations: ["recipients", "cc", "bcc"],
      output: { confidentiality: "internal" },
      run: (
        st: TripMailState,
        a: { recipients: string[]; subject: string; body: string; cc?: string[]; bcc?: string[] },
      ) => {
        const id = String(st.emails.length);
        st.emails.push({
          id,
          sender: st.account,
          recipients: a.recipients,
          cc: a.cc ?? [],
          bcc: a.bcc ?? [],
          subject: a.subject,
          body: a.body,
          status: "sent",
          timestamp: new Date(0).toISOString(),
        });
        return { id, sent: true };
      },
    }),
  },
};

const event = obj({
  id: str("Event id"),
  title: str("Title"),
  description: str("Description"),
  start_time: str("Start"),
  end_time: str("End"),
  location: str("Where (empty if none)"),
  participants: arr(str("E-mail address")),
  status: str("confirmed or canceled"),
});

export const tripcalendar: DemoApp<TripCalendarState> = {
  name: "tripcalendar",
  version: "1.0.0",
  description: "Calendar: the user's own calendar; create, find and cancel events.",
  seed: () => ({ account: "", currentDay: "", events: [] }),
  ops: {
    create_calendar_event: op({
      description:
        "Create an event in the user's calendar; every participant is sent an invitation by e-mail.",
      request: obj(
        {
          title: str("Title"),
          start_time: time,
          end_time: time,
          description: str("Description"),
          location: str("Where"),
          participants: addresses("Invited (the user is always in)"),
        },
        ["description", "location", "participants"],
      ),
      response: obj({ id: str("Event id"), created: bool("Created") }),
      // Invitations go out by e-mail and the entry is what the user plans her day by.
      irreversible: true,
      destinations: ["participants"],
      output: { confidentiality: "internal" },
      run: (
        st: TripCalendarState,
        a: {
          title: string;
          start_time: string;
          end_time: string;
          description?: string;
          location?: string;
          participants?: string[];
        },
      ) => {
        const id = String(st.events.length);
        st.events.push({
          id,
          title: a.title,
          description: a.description ?? "",
          start_time: a.start_time,
          end_time: a.end_time,
          location: a.location ?? "",
          participants: [...new Set([...(a.participants ?? []), st.account])],
          status: "confirmed",
        });
        return { id, created: true };
      },
    }),
    search_calendar_events: op({
      description: "Find events whose title or description contains the words, optionally on one day.",
      request: obj({ query: str("Words to find"), date: str("YYYY-MM-DD") }, ["date"]),
      response: obj({ events: arr(event) }),
      // Invitations others sent land here too: written by anyone who invites the user.
      output: { confidentiality: "internal" },
      run: (st: TripCalendarState, a: { query: string; date?: string }) => ({
        events: st.events.filter(
          (e) =>
            `${e.title} ${e.description}`.toLowerCase().includes(a.query.toLowerCase()) &&
            (!a.date || e.start_time.startsWith(a.date)),
        ),
      }),
    }),
    get_day_calendar_events: op({
      description: "The events on one day.",
      request: obj({ day: str("YYYY-MM-DD") }),
      response: obj({ events: arr(event) }),
      output: { confidentiality: "internal" },
      run: (st: TripCalendarState, a: { day: string }) => ({
        events: st.events.filter((e) => e.start_time.startsWith(a.day)),
      }),
    }),
    cancel_calendar_event: op({
      description: "Cancel an event; its participants are told.",
      request: obj({ event_id: str("Event id") }),
      response: obj({ canceled: { const: true } }),
      irreversible: true,
      output: { confidentiality: "internal" },
      run: (st: TripCalendarState, a: { event_id: string }) => {
        const e = st.events.find((x) => x.id === a.event_id);
        if (!e) throw new AppError(404, "not_found", `no event ${a.event_id}`);
        e.status = "canceled";
        return { canceled: true };
      },
    }),
  },
};
