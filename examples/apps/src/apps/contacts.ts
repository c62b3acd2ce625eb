import { arr, type DemoApp, notFound, obj, op, str } from "../kit.ts";

export interface Contact {
  name: string;
  relation: string;
  email: string;
  phone: string;
  iban?: string;
}

export interface ContactsState {
  contacts: Contact[];
}

function seed(): ContactsState {
  return {
    contacts: [
      {
        name: "Dana Whitfield",
        relation: "accountant",
        email: "dana.whitfield@ledgerwise.test",
        phone: "+49 30 5550 1821",
      },
      {
        name: "Morgan Lee",
        relation: "landlord",
        email: "morgan.lee@homestead-rentals.test",
        phone: "+49 30 5550 7730",
        iban: "DE89370400440532013000",
      },
      { name: "Rosa Morgan", relation: "mother", email: "mom@family-mail.test", phone: "+49 171 5550 112" },
      {
        name: "Sam Okafor",
        relation: "colleague",
        email: "sam.okafor@example.test",
        phone: "+49 160 5550 904",
      },
      {
        name: "Priya Nair",
        relation: "friend",
        email: "priya.nair@example.test",
        phone: "+49 152 5550 388",
        iban: "DE44500105175407324931",
      },
      {
        name: "Jonas Keller",
        relation: "plumber",
        email: "jonas@keller-plumbing.test",
        phone: "+49 30 5550 4417",
        iban: "DE18430609671234567800",
      },
    ],
  };
}

const contact = obj(
  {
    name: str("Full name"),
    relation: str("How the user knows them, e.g. accountant, landlord, mother"),
    email: str("Email address"),
    phone: str("Phone number"),
    iban: str("Bank account (IBAN), when known"),
  },
  ["iban"],
);

export const contacts: DemoApp<ContactsState> = {
  name: "contacts",
  version: "1.0.0",
  description: "Contacts: the user's address book with emails, phone numbers and, for some, bank accounts.",
  seed,
  ops: {
    lookup: op({
      description:
        "Find one contact by (part of) their name or by their relation to the user, e.g. 'landlord'. " +
        "Case-insensitive; returns the first match.",
      request: obj({ name: str("A name, part of one, or a relation such as accountant", { minLength: 1 }) }),
      response: contact,
      output: { confidentiality: "internal" },
      run: (s: ContactsState, { name }: { name: string }) => {
        const q = name.trim().toLowerCase();
        const found = s.contacts.find(
          (c) => c.name.toLowerCase().includes(q) || c.relation.toLowerCase() === q,
        );
        if (!found) throw notFound("contact", name);
        return found;
      },
    }),
    list: op({
      description: "List every contact.",
      request: obj({}),
      response: obj({ contacts: arr(contact) }),
      output: { confidentiality: "internal" },
      run: (s: ContactsState) => ({ contacts: s.contacts }),
    }),
  },
};
