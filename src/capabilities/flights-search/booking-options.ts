/**
 * flights.search `details`: what a selected itinerary leads to.
 * - An outbound option of a round trip: `return_search`, the flights.search params (the original
 *   query plus the option's `departure_token`) that list its return flights. No provider call, no charge.
 * - A one-way option or a chosen return flight: SerpApi's booking options (`google_flights` with the
 *   search's params and the option's `booking_token`), for both legs of a round trip: who sells the
 *   ticket(s), at what price, fare and baggage terms, and the booking request to continue with.
 * Pure: request builders and body mapper.
 */
import { type Static, Type } from "@sinclair/typebox";
import type { JsonRequest } from "../../upstream/types.ts";
import type { ActionOutput } from "../framework/define.ts";
import { bool, defined, num, type Obj, obj, str, strings } from "../shared/read.ts";
import { echoedParameters, fetchedAt, objects, readSerpApi, serpApiRequest } from "../shared/serpapi.ts";
import type { JsonObject, Link } from "../types.ts";
import type { FlightsSearchQuery } from "./schema.ts";
import { durationLabel, flightLeg, flightsEnvelope, legsOf, routeParams, SOURCE } from "./google-flights.ts";

const MAX_OPTIONS = 12;

/** The body of the flights.search that lists the return flights of an outbound selection. */
export function returnSearchParams(query: FlightsSearchQuery, departureToken: string): JsonObject {
  return defined({
    origin: query.origin,
    destination: query.destination,
    departure_date: query.departure_date,
    return_date: query.return_date,
    adults: query.adults,
    children: query.children,
    infants_in_seat: query.infants_in_seat,
    infants_on_lap: query.infants_on_lap,
    cabin: query.cabin,
    max_stops: query.max_stops,
    currency: query.currency,
    departure_token: departureToken,
  });
}

export function returnSearchDetail(query: FlightsSearchQuery, departureToken: string): ActionOutput {
  return {
    detail: {
      selection: "outbound",
      return_search: { capability: "flights.search", params: returnSearchParams(query, departureToken) },
      note:
        "This is an outbound flight of a round trip. Execute return_search.params with POST " +
        "/v1/capabilities/flights.search/execute (over MCP: the execute tool with capability flights.search; " +
        "4 credits) to list the return flights for it; `details` on " +
        "the chosen return flight then gives the booking options for both legs. No charge for this answer.",
    },
    links: [],
    billed: false,
  };
}

/** One seller's ticket (`together`, or `departing`/`returning` when sold separately). */
const ticketOffer = Type.Object({
  book_with: Type.Optional(Type.String()),
  airline: Type.Optional(Type.Boolean()),
  price: Type.Optional(Type.Number()),
  option_title: Type.Optional(Type.String()),
  marketed_as: Type.Optional(Type.Array(Type.String())),
  extensions: Type.Optional(Type.Array(Type.String())),
  baggage_prices: Type.Optional(Type.Array(Type.String())),
  booking_phone: Type.Optional(Type.String()),
  booking_request: Type.Optional(Type.Object({ url: Type.Optional(Type.String()), post_data: Type.Optional(Type.String()) })),
});

const baggageList = Type.Optional(Type.Array(Type.String()));

/** The booking-options answer (google_flights with `booking_token`): its `booking_options[]` are required. */
export const bookingAnswer = Type.Object({
  ...flightsEnvelope,
  booking_options: Type.Array(
    Type.Object({
      together: Type.Optional(ticketOffer),
      departing: Type.Optional(ticketOffer),
      returning: Type.Optional(ticketOffer),
      separate_tickets: Type.Optional(Type.Boolean()),
    }),
  ),
  selected_flights: Type.Optional(
    Type.Array(
      Type.Object({
        flights: Type.Array(flightLeg),
        total_duration: Type.Optional(Type.Number()),
        price: Type.Optional(Type.Number()),
        type: Type.Optional(Type.String()),
      }),
    ),
  ),
  baggage_prices: Type.Optional(Type.Object({ together: baggageList, departing: baggageList, returning: baggageList })),
});
export type BookingAnswer = Static<typeof bookingAnswer>;

export function bookingRequest(query: FlightsSearchQuery, bookingToken: string): JsonRequest<typeof bookingAnswer> {
  return serpApiRequest("google_flights", { ...routeParams(query), booking_token: bookingToken }, bookingAnswer);
}

export function toBookingDetail(body: BookingAnswer, query: FlightsSearchQuery, now = new Date()): ActionOutput {
  const { root, noResults } = readSerpApi(body);
  const currency = str(echoedParameters(root)?.currency)?.toUpperCase() ?? query.currency.toUpperCase();
  const options = noResults ? [] : objects(root, "booking_options").slice(0, MAX_OPTIONS).map(optionOf);
  const selected = objects(root, "selected_flights").map((s) =>
    defined({
      legs: legsOf(s),
      total_duration: durationLabel(num(s.total_duration)),
      price: num(s.price),
      type: str(s.type),
    }),
  );
  const detail: JsonObject = defined({
    selection: query.return_date === undefined ? "one_way" : "round_trip",
    currency,
    selected_flights: selected.length > 0 ? selected : undefined,
    booking_options: options,
    baggage_prices: baggageOf(obj(root.baggage_prices)),
    note:
      options.length === 0
        ? "Google Flights lists no booking options for this itinerary now; search again."
        : "Prices are in `currency`. A booking_request is what Google Flights sends the seller: POST its post_data to its url to continue.",
    source: SOURCE,
    fetched_at: fetchedAt(root, now),
  });
  const links: Link[] = [];
  const url = str(obj(root.search_metadata)?.google_flights_url);
  if (url !== undefined) links.push({ label: "Google Flights", url });
  return { detail, links };
}

/** One seller's offer: a single ticket for the itinerary (`together`), or separate tickets per leg. */
function optionOf(option: Obj): JsonObject {
  const together = obj(option.together);
  if (together !== undefined) return { separate_tickets: false, ...offerOf(together) };
  return defined({
    separate_tickets: bool(option.separate_tickets) ?? true,
    departing: offerOrUndefined(obj(option.departing)),
    returning: offerOrUndefined(obj(option.returning)),
  });
}

function offerOrUndefined(offer: Obj | undefined): JsonObject | undefined {
  return offer === undefined ? undefined : offerOf(offer);
}

function offerOf(offer: Obj): JsonObject {
  const request = obj(offer.booking_request);
  return defined({
    book_with: str(offer.book_with),
    airline: bool(offer.airline),
    price: num(offer.price),
    option_title: str(offer.option_title),
    marketed_as: strings(offer.marketed_as),
    extensions: strings(offer.extensions, 10),
    baggage: strings(offer.baggage_prices, 10),
    phone: str(offer.booking_phone),
    booking_request:
      request === undefined ? undefined : defined({ url: str(request.url), post_data: str(request.post_data) }),
  });
}

function baggageOf(prices: Obj | undefined): JsonObject | undefined {
  if (prices === undefined) return undefined;
  const out = defined({
    together: strings(prices.together, 10),
    departing: strings(prices.departing, 10),
    returning: strings(prices.returning, 10),
  });
  return Object.keys(out).length > 0 ? out : undefined;
}
