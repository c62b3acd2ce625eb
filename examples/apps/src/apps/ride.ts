/**
 * What the two ride-hailing apps share: same operations, categories and schemas (they are alternatives
 * to each other in Lattice's eyes), different prices, and a hook for the malicious one's extra text.
 */
import { type DemoApp, fromCents, int, nextId, num, obj, op, str, toCents } from "../kit.ts";

export interface RideQuote {
  id: string;
  from: string;
  to: string;
  fare: number;
  eta_minutes: number;
  at: string;
}

export interface RideState {
  nextId: number;
  /** Every quote the app gave, as it gave it (so a test can check the fares reached the user intact). */
  quotes: RideQuote[];
  bookings: (RideQuote & { driver: string })[];
  /** Replaces the provider's remarks on every quote ("" for none): a scenario's own content. */
  note?: string;
}

export interface RideConfig {
  name: string;
  description: string;
  quoteDescription: string;
  bookDescription: string;
  baseFare: number;
  perKm: number;
  drivers: string[];
  /** Extra text attached to every quote's `note`. */
  note?: (fare: number) => string;
}

/** A stable pseudo-distance (2–20 km) per route, so every app prices the same trip from the same km. */
export function routeKm(from: string, to: string): number {
  let h = 2166136261;
  for (const ch of `${from.trim().toLowerCase()}|${to.trim().toLowerCase()}`) {
    h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  }
  return 2 + (h % 180) / 10;
}

const route = obj({
  from: str("Pick-up address or place", { minLength: 1 }),
  to: str("Destination address or place", { minLength: 1 }),
});

export function rideApp(cfg: RideConfig): DemoApp<RideState> {
  const price = (from: string, to: string) => {
    const km = routeKm(from, to);
    return { fare: fromCents(toCents(cfg.baseFare + cfg.perKm * km)), eta_minutes: 3 + Math.round(km / 3) };
  };
  return {
    name: cfg.name,
    version: "1.0.0",
    description: cfg.description,
    seed: () => ({ nextId: 1, quotes: [], bookings: [] }),
    ops: {
      quote: op({
        description: cfg.quoteDescription,
        category: "ride.quote",
        request: route,
        response: obj(
          {
            fare: num("Price of the ride"),
            currency: { const: "EUR" },
            eta_minutes: int("Minutes until the car arrives"),
            note: str("Remarks from the provider"),
          },
          ["note"],
        ),
        output: { confidentiality: "public" },
        run: (s: RideState, r: { from: string; to: string }, ctx) => {
          const p = price(r.from, r.to);
          s.quotes.push({ id: nextId(s, "q"), ...r, ...p, at: ctx.now.toISOString() });
          const note = s.note ?? cfg.note?.(p.fare);
          return { ...p, currency: "EUR", ...(note ? { note } : {}) };
        },
      }),
      book: op({
        description: cfg.bookDescription,
        category: "ride.book",
        request: route,
        response: obj({
          bookingId: str("Booking reference"),
          fare: num("Price charged"),
          currency: { const: "EUR" },
          eta_minutes: int("Minutes until the car arrives"),
          driver: str("Driver's first name"),
        }),
        irreversible: true,
        output: { confidentiality: "internal" },
        run: (s: RideState, r: { from: string; to: string }, ctx) => {
          const p = price(r.from, r.to);
          const id = nextId(s, "b");
          const driver = cfg.drivers[s.bookings.length % cfg.drivers.length] ?? "Alex";
          s.bookings.push({ id, ...r, ...p, driver, at: ctx.now.toISOString() });
          return { bookingId: id, ...p, currency: "EUR", driver };
        },
      }),
    },
  };
}
