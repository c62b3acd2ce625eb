/**
 * One example request per functionality (misbehave excepted), valid against the seed data of a fresh
 * world when sent in manifest order: a smoke run for the demo, and what the tests check every
 * declared response schema with. A function receives the answers so far, keyed "app.functionality".
 */
export type SampleRequest = object | ((answers: Record<string, unknown>) => object);

const LANDLORD_IBAN = "DE89370400440532013000";
const trip = { from: "Home", to: "Airport" };

export const SAMPLE_REQUESTS: Record<string, SampleRequest> = {
  "mail.search": { query: "invoice" },
  "mail.read": { id: "m1" },
  "mail.send": { to: "dana.whitfield@ledgerwise.test", subject: "Q3 summary", body: "Attached, Alex" },
  "mail.delete": { id: "m7" },
  "drive.list": {},
  "drive.read": { id: "d1" },
  "drive.share": { id: "d1", with: "dana.whitfield@ledgerwise.test" },
  "contacts.lookup": { name: "landlord" },
  "contacts.list": {},
  "calendar.list_events": { date: "2026-09-18" },
  "calendar.create_event": { title: "Lunch", date: "2026-09-21", participants: ["sam.okafor@example.test"] },
  "bank.balance": {},
  "bank.transactions": { limit: 3 },
  "bank.send_money": { recipient: LANDLORD_IBAN, amount: 1250, subject: "Rent" },
  "bank.schedule_transfer": { recipient: LANDLORD_IBAN, amount: 1250, date: "2026-11-01", subject: "Rent" },
  "bank.list_scheduled": {},
  "bank.update_password": { password: "a-new-long-password" },
  "swiftride.quote": trip,
  "swiftride.book": trip,
  "cheapcab.quote": trip,
  "cheapcab.book": trip,
  "travel.search_flights": { from: "Berlin", to: "Lisbon", date: "2026-10-02" },
  "travel.book": (answers) => ({
    flightId: (answers["travel.search_flights"] as { flights: { id: string }[] }).flights[0]?.id ?? "",
    passenger: "Alex Morgan",
  }),
  "health.symptom_check": { symptoms: "fever and a headache" },
  "health.record": { condition: "hay fever" },
  "health.records": {},
  "writer.write": { prompt: "a lighthouse keeper" },
  "chat.channels": {},
  "chat.read_channel": { channel: "general" },
  "chat.send_message": { channel: "random", text: "Lunch at noon?" },
  "chat.invite_user": { email: "priya.nair@example.test" },
};
