/**
 * flights.search (spec 4.6): flight itineraries from Google Flights through SerpApi's `google_flights`
 * engine. Single result (one provider search, every option on one page), no update, 4 credits a
 * search. `details` gives booking options (fetched, 4 credits, cached), except on an outbound option of
 * a round trip, where it gives `return_search` at no charge: the search that lists that outbound's
 * return flights, whose `details` give the booking options of both legs.
 */
import { type Static, Type } from "@sinclair/typebox";
import { invalidRequest } from "../../errors.ts";
import { defineCapability, type RecordView } from "../framework/define.ts";
import { httpSource } from "../framework/http-source.ts";
import { range, requires, sumAtMost, validDate } from "../framework/rules.ts";
import { SERPAPI_DETAIL_COST, serpApiSearchCost, serpApiSourceOf } from "../shared/serpapi.ts";
import { bookingRequest, returnSearchDetail, toBookingDetail } from "./booking-options.ts";
import { SOURCE, toPage, toRequest } from "./google-flights.ts";
import { MINUTE } from "../framework/durations.ts";
import { type FlightsSearchQuery, flightsSearchSchema } from "./schema.ts";

export { type FlightsSearchQuery, flightsSearchSchema } from "./schema.ts";

/**
 * An outbound flight of a round trip (the search has a `return_date` and is not itself the return
 * search): its departure token, which names the return flights; else undefined.
 */
function returnTokenOf(record: FlightRecord): string | undefined {
  const outbound = record.query.return_date !== undefined && record.query.departure_token === undefined;
  return outbound ? record.ref.departure_token : undefined;
}

const NO_BOOKING = "The source gave this itinerary no booking token, so it has no booking options.";

/** The tokens `details` reads: the return flights' (outbound legs of a round trip) or the booking options'. */
const flightTokens = Type.Object({ departure_token: Type.Optional(Type.String()), booking_token: Type.Optional(Type.String()) });
type FlightRecord = RecordView<FlightsSearchQuery, Static<typeof flightTokens>>;

export const flightsSearch = defineCapability({
  id: "flights.search",
  title: "Flight search",
  summary: "Flight itineraries from Google Flights with legs, price, duration, stops, emissions and booking options.",
  description:
    `Searches ${SOURCE} for flights from \`origin\` to \`destination\` on \`departure_date\` (add \`return_date\` ` +
    "for a round trip). At most nine passengers in total (adults, children, infants in seat and on lap); child " +
    "ages are not accepted. Every record carries `currency`, `requested_passengers` and its `legs` (airports, " +
    "local times, airline, flight number), and when the source has them `price`, `total_duration`, `stops`, " +
    "`layovers`, `departure`, `arrival`, `emissions_kg` and `needs_return_selection`. A round trip is chosen in " +
    "two steps: the search lists outbound flights (`needs_return_selection: true`, prices for the round trip); " +
    "`details` on one returns `return_search` {capability, params} at no charge; executing it (the original " +
    "query plus `departure_token`) lists the return flights for that outbound, and `details` on the chosen return " +
    "gives the booking options for both legs (cached). On a one-way flight `details` gives its booking " +
    "options directly. Single result: all options of a search come at once; `more` and `update` are not offered.",
  topic: "travel and places",
  schema: flightsSearchSchema,
  recordKeys: Type.Object({
    currency: Type.String({ description: "ISO 4217 code of `price`." }),
    requested_passengers: Type.Object(
      { adults: Type.Integer(), children: Type.Integer(), infants_in_seat: Type.Integer(), infants_on_lap: Type.Integer() },
      { description: "The passengers the search asked for." },
    ),
    legs: Type.Array(Type.Object({}, { additionalProperties: true }), {
      description: "Each flight: from, to, departs_at, arrives_at (local, YYYY-MM-DD HH:MM), duration_min, airline, flight_number…",
    }),
    price: Type.Optional(Type.Number({ description: "Price for all requested passengers (round trip on round-trip searches)." })),
    total_duration: Type.Optional(Type.String({ description: "Total travel time, e.g. \"24 h 40 min\"." })),
    stops: Type.Optional(Type.Integer({ minimum: 0 })),
    layovers: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
    departure: Type.Optional(Type.String({ description: "Local departure time of the first flight (YYYY-MM-DD HH:MM)." })),
    arrival: Type.Optional(Type.String({ description: "Local arrival time of the last flight (YYYY-MM-DD HH:MM)." })),
    emissions_kg: Type.Optional(Type.Number({ description: "Estimated CO2 emissions, kg." })),
    needs_return_selection: Type.Optional(Type.Boolean({ description: "An outbound of a round trip: choose its return with `details` → `return_search`." })),
  }),
  paging: "single",
  deadlineMs: 15_000,
  // Identical requests within this are answered from Quarry's answer cache, free (docs/providers.md, "Answer cache").
  cacheTtlMs: 15 * MINUTE,
  cost: serpApiSearchCost(
    "4 credits ($0.004) per SerpApi search, also when nothing is found (SerpApi bills empty searches); the " +
      "return-flights search of a round trip is a search too. `details`: 4 credits the first time for booking " +
      "options (then cached and free); free for an outbound selection, which answers `return_search` without a provider call.",
  ),
  rules: [
    validDate("departure_date"),
    validDate("return_date"),
    range("departure_date", "return_date", { at: "to" }),
    requires("departure_token", "return_date", "`departure_token` requires the original round-trip `return_date`."),
    sumAtMost(["adults", "children", "infants_in_seat", "infants_on_lap"], 9, { what: "the number of passengers" }),
  ],
  sources: [
    httpSource({
      id: "serpapi",
      title: serpApiSourceOf("Google Flights").title,
      provider: "serpapi",
      request: (query: FlightsSearchQuery) => toRequest(query),
      toPage: (body, query) => toPage(body, query),
    }),
  ],
  actions: {
    details: {
      description:
        "Booking options of the itinerary (sellers, prices, fares, baggage, booking request), for both legs of a " +
        "chosen round trip: 4 credits the first time, then cached. On an outbound flight of a round trip: " +
        "`return_search` {capability, params}, free, no provider call.",
      mode: "fetched",
      cost: SERPAPI_DETAIL_COST,
      needs: { ref: flightTokens, refusal: NO_BOOKING, message: "This itinerary cannot be booked through the source." },
      appliesTo: (record) => returnTokenOf(record) !== undefined || record.ref.booking_token !== undefined,
      async run(ctx, record) {
        const query = record.query;
        const departureToken = returnTokenOf(record);
        if (departureToken !== undefined) return returnSearchDetail(query, departureToken);
        const bookingToken = record.ref.booking_token;
        if (bookingToken === undefined) {
          throw invalidRequest(
            [{ path: "/record_id", message: NO_BOOKING }],
            "This itinerary cannot be booked through the source.",
          );
        }
        const response = await ctx.upstream.send(bookingRequest(query, bookingToken), ctx.signal);
        return toBookingDetail(response.body, query);
      },
    },
  },
  examples: [
    {
      title: "Round trip Singapore to Austin, outbound flights",
      body: { origin: "SIN", destination: "AUS", departure_date: "2025-09-09", return_date: "2025-09-19" },
    },
    {
      title: "Round trip Berlin to Paris Orly in euros",
      body: { origin: "BER", destination: "ORY", departure_date: "2025-03-12", return_date: "2025-03-20", currency: "EUR" },
    },
  ],
});
