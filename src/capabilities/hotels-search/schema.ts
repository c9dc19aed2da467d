/**
 * hotels.search's request schema (spec 4.6) and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { defaulted, oneOf, text } from "../framework/fields.ts";
import { currency } from "../shared/travel-fields.ts";

const date = (description: string) =>
  Type.String({ pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", description: `${description} (YYYY-MM-DD).` });

export const hotelsSearchSchema = Type.Object(
  {
    destination: text(1, 200, "Where to stay: a city, area, landmark or property name, e.g. \"Lucknow\" or \"Bali resorts\"."),
    check_in: date("Check-in date"),
    check_out: date("Check-out date; not before `check_in`"),
    adults: defaulted(Type.Integer({ minimum: 1, maximum: 10, default: 2, description: "Adults (1-10, default 2); at least one adult." })),
    children_ages: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1, maximum: 17, description: "A child's age, 1-17 (under one year counts as 1)." }), {
        maxItems: 5,
        description: "Age of each child (at most 5 children, each 1-17). Not accepted with `property_type: vacation_rental`.",
      }),
    ),
    currency: currency(),
    max_price: Type.Optional(Type.Number({ minimum: 0, description: "Highest price per night, in `currency`." })),
    min_rating: Type.Optional(Type.Number({ minimum: 0, maximum: 5, description: "Lowest guest rating (0-5)." })),
    amenities: Type.Optional(
      Type.Array(text(1, 100, "An amenity name as listed, e.g. \"Free Wi-Fi\", \"Pool\", \"Spa\"."), {
        maxItems: 10,
        description: "Amenities every result must list (matched by name, case-insensitively; at most 10).",
      }),
    ),
    property_type: oneOf(["hotel", "vacation_rental"], "`hotel` or `vacation_rental`; both kinds when omitted."),
    sort: oneOf(["relevance", "lowest_price", "highest_rating", "most_reviewed"], "Order of results; the source's relevance when omitted."),
  },
  { additionalProperties: false },
);

export type HotelsSearchQuery = Static<typeof hotelsSearchSchema>;
