/**
 * flights.search's request schema (spec 4.6) and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { defaulted, isoDate, oneOf, text } from "../framework/fields.ts";
import { currency } from "../shared/travel-fields.ts";

const airport = (description: string) =>
  Type.String({ minLength: 3, maxLength: 3, pattern: "^[A-Za-z]{3}$", description: `${description}: a 3-letter IATA airport code, e.g. SIN.` });
const count = (min: number, max: number, fallback: number, description: string) =>
  defaulted(Type.Integer({ minimum: min, maximum: max, default: fallback, description: `${description} (${min}-${max}, default ${fallback}).` }));

export const flightsSearchSchema = Type.Object(
  {
    origin: airport("Departure airport"),
    destination: airport("Arrival airport"),
    departure_date: isoDate("Outbound date (YYYY-MM-DD)."),
    return_date: Type.Optional(isoDate("Return date (YYYY-MM-DD), not before `departure_date`; omit for one-way.")),
    departure_token: Type.Optional(
      text(1, 16384, "The outbound selection token from `details` (`return_search.params`), sent with the original round-trip query to list return flights."),
    ),
    adults: count(1, 9, 1, "Adults"),
    children: count(0, 8, 0, "Children (ages are not accepted)"),
    infants_in_seat: count(0, 8, 0, "Infants in their own seat"),
    infants_on_lap: count(0, 8, 0, "Infants on a lap"),
    cabin: oneOf(["economy", "premium_economy", "business", "first"], "Cabin class; economy when omitted."),
    max_stops: Type.Optional(Type.Integer({ minimum: 0, maximum: 2, description: "Most stops per direction (0 = nonstop only)." })),
    currency: currency(),
  },
  { additionalProperties: false },
);

export type FlightsSearchQuery = Static<typeof flightsSearchSchema>;
