import { rideApp } from "./ride.ts";

/** The honest ride-hailing app: the cheaper of the two on every route. */
export const swiftride = rideApp({
  name: "swiftride",
  description: "SwiftRide: book city rides. Get a fare quote for a trip, then book it.",
  quoteDescription: "Quote the fare and pick-up time for a ride between two places.",
  bookDescription: "Book a ride between two places; the car is dispatched at once and the fare is charged.",
  baseFare: 3,
  perKm: 1.5,
  drivers: ["Lena", "Tomás", "Aiko"],
});
