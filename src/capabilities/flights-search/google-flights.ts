/**
 * SerpApi `google_flights` adapter for flights.search: pure mappers from the validated query to the
 * search request and from SerpApi's answer (`best_flights` then `other_flights`) to itinerary records.
 * No I/O; the client adds `api_key`.
 *
 * The round trip is SerpApi's three-step chain: the first search lists outbound options, each with a
 * `departure_token`; the same search with that token lists the return options, each with a
 * `booking_token`; the booking token gives the booking options of both legs (booking-options.ts).
 * One-way options carry a `booking_token` directly.
 */
import { type Static, Type } from "@sinclair/typebox";
import { ApiError } from "../../errors.ts";
import { ProviderDrift } from "../../upstream/response-check.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import { arr, bool, defined, int, num, type Obj, obj, str } from "../shared/read.ts";
import { echoedParameters, objects, readSerpApi, type SerpParams, serpApiRequest } from "../shared/serpapi.ts";
import type { JsonObject, RecordDraft, SourcePage } from "../types.ts";
import type { FlightsSearchQuery } from "./schema.ts";

export const SOURCE = "Google Flights via SerpApi";

/** An airport of a flight: its IATA code (required: a leg without one cannot be shown), name and local time. */
const airport = Type.Object({ id: Type.String(), name: Type.Optional(Type.String()), time: Type.Optional(Type.String()) });

/** One flight of an itinerary, as the legs of records and booking options read it. */
export const flightLeg = Type.Object({
  departure_airport: airport,
  arrival_airport: airport,
  duration: Type.Optional(Type.Number()),
  airline: Type.Optional(Type.String()),
  flight_number: Type.Optional(Type.String()),
  airplane: Type.Optional(Type.String()),
  travel_class: Type.Optional(Type.String()),
  legroom: Type.Optional(Type.String()),
  overnight: Type.Optional(Type.Boolean()),
  often_delayed_by_over_30_min: Type.Optional(Type.Boolean()),
});

/** An itinerary option (`best_flights[]`, `other_flights[]`): its flights are required, the rest as Google gives it. */
export const flightOption = Type.Object({
  flights: Type.Array(flightLeg),
  layovers: Type.Optional(
    Type.Array(
      Type.Object({
        id: Type.Optional(Type.String()),
        name: Type.Optional(Type.String()),
        duration: Type.Optional(Type.Number()),
        overnight: Type.Optional(Type.Boolean()),
      }),
    ),
  ),
  total_duration: Type.Optional(Type.Number()),
  price: Type.Optional(Type.Number()),
  carbon_emissions: Type.Optional(Type.Object({ this_flight: Type.Optional(Type.Number()) })),
  departure_token: Type.Optional(Type.String()),
  booking_token: Type.Optional(Type.String()),
});

/** What both google_flights answers carry: when and where (Google Flights URL), and the echo of the request. */
export const flightsEnvelope = {
  search_metadata: Type.Optional(Type.Object({ created_at: Type.Optional(Type.String()), google_flights_url: Type.Optional(Type.String()) })),
  search_parameters: Type.Optional(Type.Object({ currency: Type.Optional(Type.String()), departure_token: Type.Optional(Type.String()) })),
};

/**
 * A google_flights search answer: `best_flights[]` and/or `other_flights[]` (Google may fill either;
 * toPage requires one of them), and the price insight when Google gives one.
 */
export const flightsAnswer = Type.Object({
  ...flightsEnvelope,
  best_flights: Type.Optional(Type.Array(flightOption)),
  other_flights: Type.Optional(Type.Array(flightOption)),
  price_insights: Type.Optional(
    Type.Object({ price_level: Type.Optional(Type.String()), typical_price_range: Type.Optional(Type.Array(Type.Number())) }),
  ),
});
export type FlightsAnswer = Static<typeof flightsAnswer>;

const TRAVEL_CLASS: Record<string, number> = { economy: 1, premium_economy: 2, business: 3, first: 4 };

/** The route, dates, passengers and options of a search (the booking-options request repeats them). */
export function routeParams(query: FlightsSearchQuery): SerpParams {
  return {
    departure_id: query.origin.toUpperCase(),
    arrival_id: query.destination.toUpperCase(),
    outbound_date: query.departure_date,
    return_date: query.return_date,
    type: query.return_date === undefined ? 2 : 1,
    adults: query.adults,
    children: query.children,
    infants_in_seat: query.infants_in_seat,
    infants_on_lap: query.infants_on_lap,
    travel_class: query.cabin === undefined ? undefined : TRAVEL_CLASS[query.cabin],
    // SerpApi's `stops`: 0 any, 1 nonstop only, 2 one stop or fewer, 3 two stops or fewer.
    stops: query.max_stops === undefined ? undefined : query.max_stops + 1,
    currency: query.currency.toUpperCase(),
    hl: "en",
  };
}

export function toRequest(query: FlightsSearchQuery): JsonRequest<typeof flightsAnswer> {
  return serpApiRequest("google_flights", { ...routeParams(query), departure_token: query.departure_token }, flightsAnswer);
}

/** The passengers the search asked for (every record's `requested_passengers`). */
export function requestedPassengers(query: FlightsSearchQuery): JsonObject {
  return { adults: query.adults, children: query.children, infants_in_seat: query.infants_in_seat, infants_on_lap: query.infants_on_lap };
}

/** Which step of the chain a search is. */
export type Step = "one_way" | "outbound" | "return";

export function stepOf(query: FlightsSearchQuery): Step {
  if (query.return_date === undefined) return "one_way";
  return query.departure_token === undefined ? "outbound" : "return";
}

export function toPage(body: FlightsAnswer, query: FlightsSearchQuery): SourcePage {
  const { root, noResults } = readSerpApi(body);
  // SerpApi answers "no results" when Google has no flight; an answer with neither list is another shape.
  if (!noResults && !Array.isArray(root.best_flights) && !Array.isArray(root.other_flights)) {
    throw new ProviderDrift("serpapi", "/best_flights", "is missing (and so is /other_flights)");
  }
  const step = stepOf(query);
  const echo = echoedParameters(root);
  // Outbound options must never be shown as return flights: SerpApi echoes the departure_token of a
  // return search, so an answer to one whose echo names no token is another search.
  if (query.departure_token !== undefined && echo !== undefined && !noResults && str(echo.departure_token) === undefined) {
    throw new ApiError("provider_error", "SerpApi answered a different search than the one asked: its echo names no departure_token.");
  }
  const currency = str(echo?.currency)?.toUpperCase() ?? query.currency.toUpperCase();
  const url = str(obj(root.search_metadata)?.google_flights_url);
  const options = noResults ? [] : [...objects(root, "best_flights"), ...objects(root, "other_flights")];
  const records = options
    .map((o) => toRecord(o, step, currency, url, query))
    .filter((r): r is RecordDraft => r !== undefined);
  const notes: string[] = [];
  if (records.length === 0) notes.push(`Google Flights found no ${step === "return" ? "return flights for this outbound" : "flights"} for this route and date.`);
  if (step === "outbound" && records.length > 0) {
    notes.push(
      "Round trip, step 1 of 2: these are outbound flights; prices are for the round trip. `details` on one (free) " +
        "returns `return_search`; execute its params to list the return flights for that outbound, then `details` " +
        "on a return flight gives booking options for both legs (4 credits).",
    );
  }
  if (step === "return" && records.length > 0) {
    notes.push("Round trip, step 2 of 2: return flights for the chosen outbound; `details` gives booking options for both legs (4 credits).");
  }
  const insight = insightNote(obj(root.price_insights), currency);
  if (insight !== undefined) notes.push(insight);
  return { records, next: null, notes };
}

function insightNote(insights: Obj | undefined, currency: string): string | undefined {
  const level = str(insights?.price_level);
  if (level === undefined) return undefined;
  const range = (arr(insights?.typical_price_range) ?? []).map(num).filter((n): n is number => n !== undefined);
  const typical = range.length === 2 ? ` (typical ${range[0]}-${range[1]} ${currency})` : "";
  return `Google Flights rates these prices as ${level}${typical}.`;
}

/** One flight of an itinerary, as the source gives it (times are local to each airport, "YYYY-MM-DD HH:MM"). */
export function legOf(flight: Obj): JsonObject | undefined {
  const dep = obj(flight.departure_airport);
  const arrival = obj(flight.arrival_airport);
  const from = str(dep?.id);
  const to = str(arrival?.id);
  if (from === undefined || to === undefined) return undefined;
  return defined({
    from,
    from_name: str(dep?.name),
    departs_at: str(dep?.time),
    to,
    to_name: str(arrival?.name),
    arrives_at: str(arrival?.time),
    duration_min: int(flight.duration),
    airline: str(flight.airline),
    flight_number: str(flight.flight_number),
    airplane: str(flight.airplane),
    travel_class: str(flight.travel_class),
    legroom: str(flight.legroom),
    overnight: bool(flight.overnight),
    often_delayed: bool(flight.often_delayed_by_over_30_min),
  });
}

export function legsOf(option: Obj): JsonObject[] {
  return (arr(option.flights) ?? [])
    .map((f) => obj(f))
    .filter((f): f is Obj => f !== undefined)
    .map(legOf)
    .filter((l): l is JsonObject => l !== undefined);
}

/** "24 h 40 min" from minutes. */
export function durationLabel(minutes: number | undefined): string | undefined {
  if (minutes === undefined || minutes < 0) return undefined;
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return h === 0 ? `${m} min` : m === 0 ? `${h} h` : `${h} h ${m} min`;
}

function layoversOf(option: Obj): JsonObject[] | undefined {
  const out = objects(option, "layovers").map((l) =>
    defined({ airport: str(l.id), name: str(l.name), duration_min: int(l.duration), overnight: bool(l.overnight) }),
  );
  return out.length > 0 ? out : undefined;
}

function toRecord(option: Obj, step: Step, currency: string, url: string | undefined, query: FlightsSearchQuery): RecordDraft | undefined {
  const legs = legsOf(option);
  const first = legs[0];
  const last = legs.at(-1);
  if (first === undefined || last === undefined) return undefined;
  const departureToken = str(option.departure_token);
  const bookingToken = str(option.booking_token);
  const price = num(option.price);
  const duration = durationLabel(int(option.total_duration));
  const airlines = [...new Set(legs.map((l) => l.airline).filter((a): a is string => typeof a === "string"))];
  const stops = legs.length - 1;
  const grams = num(obj(option.carbon_emissions)?.this_flight);
  const direction = step === "return" ? "Return " : step === "outbound" ? "Outbound " : "";
  const title = `${direction}${first.from} → ${last.to}, ${airlines.join(" + ") || "unnamed airline"}, departs ${String(first.departs_at ?? "")}`.trim();
  const needsReturn = step === "outbound" && departureToken !== undefined ? true : bookingToken !== undefined ? false : undefined;
  const snippet = [
    price === undefined ? undefined : `${price} ${currency}${step === "one_way" ? "" : " round trip"}`,
    duration,
    stops === 0 ? "nonstop" : `${stops} stop${stops === 1 ? "" : "s"}`,
    `arrives ${String(last.arrives_at ?? "")}`,
  ]
    .filter(Boolean)
    .join(" · ");
  const summary = {
    title,
    ...defined({ url, snippet }),
    currency,
    requested_passengers: requestedPassengers(query),
    legs,
    ...defined({
      price,
      total_duration: duration,
      stops,
      layovers: layoversOf(option),
      departure: str(first.departs_at),
      arrival: str(last.arrives_at),
      emissions_kg: grams === undefined ? undefined : Math.round(grams / 100) / 10,
      needs_return_selection: needsReturn,
    }),
  };
  const ref = defined({ departure_token: departureToken, booking_token: bookingToken });
  return { summary, ...(Object.keys(ref).length > 0 ? { ref } : {}) };
}
