/**
 * The booking apps of AgentDojo v1's travel suite (travel_booking_client.py), split the way a chat
 * product would offer them: hotels, restaurants, car rental and flights, each with its listings
 * and its own reservations. Same lookups as AgentDojo's tools, answered as records instead of
 * formatted strings. Seeded empty: the security benchmark writes AgentDojo's environment into each
 * world. Listings are public (anyone can read a booking site); reviews are written by the public, so
 * the tenant gives these outputs no integrity (the policy's default). A reservation tells the
 * provider the user's name and dates, and cannot be taken back without the provider: irreversible.
 * A reservation is by name and not checked against the listings, as AgentDojo's reserve_* tools
 * (the booking desk takes any name; a name it does not list is still a booking made in the user's).
 */
import {
  AppError,
  arr,
  type DemoApp,
  num,
  obj,
  op,
  type Schema,
  str,
} from "../../../../examples/apps/src/kit.ts";

export interface Hotel {
  name: string;
  city: string;
  rating: number;
  price_min: number;
  price_max: number;
  address: string;
  reviews: string[];
}
export interface Restaurant {
  name: string;
  city: string;
  address: string;
  cuisine_type: string;
  price_per_person: number;
  operating_hours: string;
  rating: number;
  reviews: string[];
  dietary_restrictions: string;
  contact_information: string;
}
export interface CarCompany {
  name: string;
  city: string;
  address: string;
  rating: number;
  price_per_day: number;
  reviews: string[];
  contact_information: string;
  car_types_available: string[];
  fuel_options: string[];
}
export interface Flight {
  airline: string;
  flight_number: string;
  departure_city: string;
  arrival_city: string;
  departure_time: string;
  arrival_time: string;
  price: number;
  contact_information: string;
}
export interface Reservation {
  title: string;
  start_time: string;
  end_time: string;
}
export interface HotelsState {
  hotels: Hotel[];
  reservations: Reservation[];
}
export interface RestaurantsState {
  restaurants: Restaurant[];
  reservations: Reservation[];
}
export interface CarsState {
  companies: CarCompany[];
  reservations: Reservation[];
}
export interface FlightsState {
  flights: Flight[];
}

const names = str("A name, exactly as the listing gives it");
const namesReq = obj({ names: arr(names, "The names to look up") });
const cityReq = obj({ city: str("City name, e.g. Paris") });
const listed = obj({ names: arr(str("Name")) });
const notFound = (what: string, n: string) =>
  new AppError(404, "not_found", `no ${what} ${JSON.stringify(n)}`);

/** The records named, in the order asked; an unknown name is an error (AgentDojo's is a KeyError). */
function pickOrThrow<T extends { name: string }>(list: T[], wanted: string[], what: string): T[] {
  return wanted.map((n) => {
    const found = list.find((x) => x.name === n);
    if (!found) throw notFound(what, n);
    return found;
  });
}

/** A lookup answering one field per named record: `{items: [{name, <field>}]}`. */
function lookup<S, T extends { name: string }>(
  description: string,
  items: (s: S) => T[],
  what: string,
  fields: Record<string, Schema>,
  project: (x: T) => Record<string, unknown>,
) {
  return op({
    description,
    request: namesReq,
    response: obj({ items: arr(obj({ name: str("Name"), ...fields })) }),
    output: { confidentiality: "public" },
    run: (s: S, { names: wanted }: { names: string[] }) => ({
      items: pickOrThrow(items(s), wanted, what).map((x) => ({ name: x.name, ...project(x) })),
    }),
  });
}

const reviewFields = { rating: num("Average rating, 0-5"), reviews: arr(str("A review")) };
const day = str("Date, YYYY-MM-DD", { pattern: "^\\d{4}-\\d{2}-\\d{2}$" });
const time = str("Date and time, YYYY-MM-DD HH:MM", { pattern: "^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}$" });
const reserved = obj({ reserved: { const: true }, title: str("What was reserved") });

export const hotels: DemoApp<HotelsState> = {
  name: "hotels",
  version: "1.0.0",
  description: "Hotels: find hotels by city, compare prices, ratings and reviews, and reserve a stay.",
  seed: () => ({ hotels: [], reservations: [] }),
  ops: {
    get_all_hotels_in_city: op({
      description: "List the hotels in a city.",
      request: cityReq,
      response: listed,
      output: { confidentiality: "public" },
      run: (s: HotelsState, { city }: { city: string }) => ({
        names: s.hotels.filter((h) => h.city === city).map((h) => h.name),
      }),
    }),
    get_hotels_prices: lookup(
      "The price range per night of each named hotel.",
      (s: HotelsState) => s.hotels,
      "hotel",
      { price_min: num("Cheapest night"), price_max: num("Dearest night") },
      (h) => ({ price_min: h.price_min, price_max: h.price_max }),
    ),
    get_hotels_address: lookup(
      "The address of each named hotel.",
      (s: HotelsState) => s.hotels,
      "hotel",
      { address: str("Street address") },
      (h) => ({ address: h.address }),
    ),
    get_rating_reviews_for_hotels: lookup(
      "The rating and the guests' reviews of each named hotel.",
      (s: HotelsState) => s.hotels,
      "hotel",
      reviewFields,
      (h) => ({ rating: h.rating, reviews: h.reviews }),
    ),
    reserve_hotel: op({
      description: "Reserve a stay at a hotel, in the user's name, from one day to another.",
      request: obj({ hotel: str("Hotel name"), start_day: day, end_day: day }),
      response: reserved,
      irreversible: true,
      destinations: ["hotel"],
      output: { confidentiality: "internal" },
      run: (s: HotelsState, a: { hotel: string; start_day: string; end_day: string }) => {
        s.reservations.push({ title: a.hotel, start_time: a.start_day, end_time: a.end_day });
        return { reserved: true, title: a.hotel };
      },
    }),
  },
};

const rest = (s: RestaurantsState) => s.restaurants;
export const restaurants: DemoApp<RestaurantsState> = {
  name: "restaurants",
  version: "1.0.0",
  description:
    "Restaurants: find restaurants by city, their cuisine, prices, hours, ratings and reviews; book a table.",
  seed: () => ({ restaurants: [], reservations: [] }),
  ops: {
    get_all_restaurants_in_city: op({
      description: "List the restaurants in a city.",
      request: cityReq,
      response: listed,
      output: { confidentiality: "public" },
      run: (s: RestaurantsState, { city }: { city: string }) => ({
        names: s.restaurants.filter((r) => r.city === city).map((r) => r.name),
      }),
    }),
    get_cuisine_type_for_restaurants: lookup(
      "The cuisine of each named restaurant.",
      rest,
      "restaurant",
      { cuisine_type: str("Cuisine") },
      (r) => ({ cuisine_type: r.cuisine_type }),
    ),
    get_restaurants_address: lookup(
      "The address of each named restaurant.",
      rest,
      "restaurant",
      { address: str("Street address") },
      (r) => ({ address: r.address }),
    ),
    get_rating_reviews_for_restaurants: lookup(
      "The rating and the guests' reviews of each named restaurant.",
      rest,
      "restaurant",
      reviewFields,
      (r) => ({ rating: r.rating, reviews: r.reviews }),
    ),
    get_dietary_restrictions_for_all_restaurants: lookup(
      "The dietary options (vegetarian, vegan, gluten-free) of each named restaurant.",
      rest,
      "restaurant",
      { dietary_restrictions: str("Dietary options") },
      (r) => ({ dietary_restrictions: r.dietary_restrictions }),
    ),
    get_contact_information_for_restaurants: lookup(
      "The contact information of each named restaurant.",
      rest,
      "restaurant",
      { contact_information: str("Phone and the like") },
      (r) => ({ contact_information: r.contact_information }),
    ),
    get_price_for_restaurants: lookup(
      "The price per person of each named restaurant.",
      rest,
      "restaurant",
      { price_per_person: num("Price per person") },
      (r) => ({ price_per_person: r.price_per_person }),
    ),
    check_restaurant_opening_hours: lookup(
      "The opening hours and days of each named restaurant.",
      rest,
      "restaurant",
      { operating_hours: str("Hours and days") },
      (r) => ({ operating_hours: r.operating_hours }),
    ),
    reserve_restaurant: op({
      description: "Book a table at a restaurant, in the user's name, for two hours from the given time.",
      request: obj({ restaurant: str("Restaurant name"), start_time: time }),
      response: reserved,
      irreversible: true,
      destinations: ["restaurant"],
      output: { confidentiality: "internal" },
      run: (s: RestaurantsState, a: { restaurant: string; start_time: string }) => {
        const [d, t] = a.start_time.split(" ");
        const end = `${d} ${String(Number(t!.slice(0, 2)) + 2).padStart(2, "0")}${t!.slice(2)}`;
        s.reservations.push({ title: a.restaurant, start_time: a.start_time, end_time: end });
        return { reserved: true, title: a.restaurant };
      },
    }),
  },
};

const co = (s: CarsState) => s.companies;
export const cars: DemoApp<CarsState> = {
  name: "carrental",
  version: "1.0.0",
  description:
    "Car rental: find rental companies by city, their cars, fuel options, prices and reviews; rent a car.",
  seed: () => ({ companies: [], reservations: [] }),
  ops: {
    get_all_car_rental_companies_in_city: op({
      description: "List the car rental companies in a city.",
      request: cityReq,
      response: listed,
      output: { confidentiality: "public" },
      run: (s: CarsState, { city }: { city: string }) => ({
        names: s.companies.filter((c) => c.city === city).map((c) => c.name),
      }),
    }),
    get_car_types_available: lookup(
      "The car types each named company rents out.",
      co,
      "company",
      { car_types: arr(str("Car type")) },
      (c) => ({ car_types: c.car_types_available }),
    ),
    get_rating_reviews_for_car_rental: lookup(
      "The rating and the customers' reviews of each named company.",
      co,
      "company",
      reviewFields,
      (c) => ({ rating: c.rating, reviews: c.reviews }),
    ),
    get_car_rental_address: lookup(
      "The address of each named company.",
      co,
      "company",
      { address: str("Street address") },
      (c) => ({ address: c.address }),
    ),
    get_car_fuel_options: lookup(
      "The fuel options of each named company.",
      co,
      "company",
      { fuel_options: arr(str("Fuel")) },
      (c) => ({ fuel_options: c.fuel_options }),
    ),
    get_car_price_per_day: lookup(
      "The price per day of each named company.",
      co,
      "company",
      { price_per_day: num("Price per day") },
      (c) => ({ price_per_day: c.price_per_day }),
    ),
    reserve_car_rental: op({
      description: "Rent a car from a company, in the user's name, from one time to another.",
      request: obj({ company: str("Company name"), start_time: time, end_time: time }),
      response: reserved,
      irreversible: true,
      destinations: ["company"],
      output: { confidentiality: "internal" },
      run: (s: CarsState, a: { company: string; start_time: string; end_time: string }) => {
        s.reservations.push({ title: a.company, start_time: a.start_time, end_time: a.end_time });
        return { reserved: true, title: a.company };
      },
    }),
  },
};

export const flights: DemoApp<FlightsState> = {
  name: "flights",
  version: "1.0.0",
  description: "Flights: the flights between two cities, with times, prices and the airline's contact.",
  seed: () => ({ flights: [] }),
  ops: {
    get_flight_information: op({
      description: "The flights from one city to another.",
      request: obj({ departure_city: str("From"), arrival_city: str("To") }),
      response: obj({
        flights: arr(
          obj({
            airline: str("Airline"),
            flight_number: str("Flight number"),
            departure_time: str("Departure"),
            arrival_time: str("Arrival"),
            price: num("Price"),
            contact_information: str("Contact"),
          }),
        ),
      }),
      output: { confidentiality: "public" },
      run: (s: FlightsState, a: { departure_city: string; arrival_city: string }) => ({
        flights: s.flights
          .filter((f) => f.departure_city === a.departure_city && f.arrival_city === a.arrival_city)
          .map(({ departure_city: _d, arrival_city: _a, ...f }) => f),
      }),
    }),
  },
};
