/**
 * The user's e-mail and address book of AgentDojo v1's workspace suite (email_client.py), as two
 * apps: `workmail` (her inbox: send, search, read, delete) and `workcontacts` (the contacts the
 * inbox knows: everyone who wrote to her or was written to). Named apart from the demo tenant's mail
 * and contacts apps. Seeded empty; the benchmark writes AgentDojo's environment in.
 *
 * As AgentDojo: an unknown id is an error; ids are the largest id plus one; a deleted mail goes to
 * the trash. Unlike AgentDojo, a search that finds nothing answers an empty list (AgentDojo raises),
 * so a plan's later steps see "none" instead of the query failing.
 */
import { AppError, arr, bool, type DemoApp, obj, op, str } from "../../../../examples/apps/src/kit.ts";

export interface WorkEmail {
  id: string;
  sender: string;
  recipients: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  body: string;
  status: "sent" | "received" | "draft";
  read: boolean;
  timestamp: string;
  /** Cloud drive file ids. */
  attachments: string[];
}
export interface WorkMailState {
  account: string;
  emails: WorkEmail[];
  trash: WorkEmail[];
}
export interface WorkContact {
  name: string;
  email: string;
  /**
   * She saved it herself: she wrote to this address (her sent mail), the app's own record of her
   * act. An address that only wrote to her is not saved: whoever sends her an injection is in her
   * inbox, never in this list's saved part (#43).
   */
  saved: boolean;
}
export interface WorkContactsState {
  contacts: WorkContact[];
}

const addresses = (d: string) => arr(str("E-mail address"), d);
const email = obj({
  id: str("E-mail id"),
  sender: str("From"),
  recipients: addresses("To"),
  cc: addresses("Cc"),
  bcc: addresses("Bcc"),
  subject: str("Subject"),
  body: str("Body"),
  status: str("sent, received or draft"),
  read: bool("Read"),
  timestamp: str("When, ISO 8601"),
  attachments: arr(str("Cloud drive file id"), "Attached files"),
});
const emails = obj({ emails: arr(email) });
const none = obj({});

/** AgentDojo's next id: the largest id plus one. */
export const nextIdOf = (xs: Array<{ id: string }>): string =>
  String(Math.max(-1, ...xs.map((x) => Number(x.id))) + 1);
const has = (text: string, q: string) => text.toLowerCase().includes(q.toLowerCase());

export const workmail: DemoApp<WorkMailState> = {
  name: "workmail",
  version: "1.0.0",
  description: "E-mail: the user's work inbox; send, search, read and delete her e-mail.",
  seed: () => ({ account: "", emails: [], trash: [] }),
  ops: {
    send_email: op({
      description: "Send an e-mail from the user's address; attachments are cloud drive files given by id.",
      request: obj(
        {
          recipients: addresses("To"),
          subject: str("Subject"),
          body: str("Body"),
          attachments: arr(
            obj({ type: { const: "file" }, file_id: str("Cloud drive file id") }),
            "Files to attach",
          ),
          cc: addresses("Cc"),
          bcc: addresses("Bcc"),
        },
        ["attachments", "cc", "bcc"],
      ),
      response: email,
      // Sent mail cannot be unsent, and the addresses decide who receives the user's words.
      irreversible: true,
      destinations: ["recipients", "cc", "bcc"],
      output: { confidentiality: "confidential" },
      run: (
        st: WorkMailState,
        a: {
          recipients: string[];
          subject: string;
          body: string;
          attachments?: Array<{ file_id: string }>;
          cc?: string[];
          bcc?: string[];
        },
        ctx,
      ) => {
        const sent: WorkEmail = {
          id: nextIdOf(st.emails),
          sender: st.account,
          recipients: a.recipients,
          cc: a.cc ?? [],
          bcc: a.bcc ?? [],
          subject: a.subject,
          body: a.body,
          status: "sent",
          read: true,
          timestamp: ctx.now.toISOString().slice(0, 19),
          attachments: (a.attachments ?? []).map((x) => x.file_id),
        };
        st.emails.push(sent);
        return sent;
      },
    }),
    delete_email: op({
      description: "Delete the e-mail with the given id (it goes to the trash).",
      request: obj({ email_id: str("E-mail id") }),
      response: obj({ deleted: str("The deleted e-mail's id") }),
      // What the user has not read yet, or what she sent, is gone from her inbox: a trace removed.
      irreversible: true,
      output: { confidentiality: "internal" },
      run: (st: WorkMailState, a: { email_id: string }) => {
        const i = st.emails.findIndex((e) => e.id === a.email_id);
        if (i < 0) throw new AppError(404, "not_found", `Email with ID '${a.email_id}' not found.`);
        st.trash.push(...st.emails.splice(i, 1));
        return { deleted: a.email_id };
      },
    }),
    get_unread_emails: op({
      description: "The unread e-mails; they are marked read.",
      request: none,
      response: emails,
      // Mail is written by anyone who has her address: its content has no integrity.
      output: { confidentiality: "confidential" },
      run: (st: WorkMailState) => {
        const unread = st.emails.filter((e) => !e.read);
        for (const e of unread) e.read = true;
        return { emails: unread };
      },
    }),
    get_sent_emails: op({
      description: "The e-mails the user sent.",
      request: none,
      response: emails,
      output: { confidentiality: "confidential" },
      run: (st: WorkMailState) => ({ emails: st.emails.filter((e) => e.status === "sent") }),
    }),
    get_received_emails: op({
      description: "The e-mails the user received.",
      request: none,
      response: emails,
      output: { confidentiality: "confidential" },
      run: (st: WorkMailState) => ({ emails: st.emails.filter((e) => e.status === "received") }),
    }),
    get_draft_emails: op({
      description: "The user's draft e-mails.",
      request: none,
      response: emails,
      output: { confidentiality: "confidential" },
      run: (st: WorkMailState) => ({ emails: st.emails.filter((e) => e.status === "draft") }),
    }),
    search_emails: op({
      description:
        "E-mails whose subject or body contains the query (empty: all), optionally only from one sender address.",
      request: obj({ query: str("Words to find"), sender: str("Sender's e-mail address") }, ["sender"]),
      response: emails,
      output: { confidentiality: "confidential" },
      run: (st: WorkMailState, a: { query: string; sender?: string }) => ({
        emails: st.emails.filter(
          (e) =>
            (a.sender === undefined || e.sender.toLowerCase() === a.sender.toLowerCase()) &&
            (has(e.subject, a.query) || has(e.body, a.query)),
        ),
      }),
    }),
  },
};

const contacts = obj({
  contacts: arr(obj({ name: str("Name"), email: str("E-mail address") })),
  saved: arr(str("E-mail address"), "The addresses among these she saved (wrote to) herself"),
});
/** The found contacts as the answer gives them, and which of them she saved. */
const found = (list: WorkContact[]) => ({
  contacts: list.map(({ name, email }) => ({ name, email })),
  saved: list.filter((c) => c.saved).map((c) => c.email),
});

export const workcontacts: DemoApp<WorkContactsState> = {
  name: "workcontacts",
  version: "1.0.0",
  description: "Contacts: the people in the user's e-mail, found by name or by address.",
  seed: () => ({ contacts: [] }),
  ops: {
    search_contacts_by_name: op({
      description: "Contacts whose name contains the query.",
      request: obj({ query: str("A name or part of one") }),
      response: contacts,
      // Built from every address that ever wrote to her: an attacker's too, so only `saved` (the
      // addresses she wrote to) is her own record. Names come from addresses.
      output: { confidentiality: "internal" },
      run: (st: WorkContactsState, a: { query: string }) =>
        found(st.contacts.filter((c) => has(c.name, a.query))),
    }),
    search_contacts_by_email: op({
      description: "Contacts whose e-mail address contains the query.",
      request: obj({ query: str("An address or part of one") }),
      response: contacts,
      output: { confidentiality: "internal" },
      run: (st: WorkContactsState, a: { query: string }) =>
        found(st.contacts.filter((c) => has(c.email, a.query))),
    }),
  },
};
