/**
 * realestate.search's request schema (spec 4.6) and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { num, oneOfOr, text } from "../framework/fields.ts";

export const HOME_TYPES = ["house", "condo", "townhouse", "multi_family", "apartment", "land", "manufactured"] as const;
export const SORTS = ["relevance", "newest", "price_asc", "price_desc", "beds", "baths", "sqft"] as const;

const price = (description: string) => Type.Optional(Type.Number({ minimum: 0, description }));

export const realestateSearchSchema = Type.Object(
  {
    query: text(1, 300, 'A US city and state, ZIP code or neighborhood, e.g. "Santa Monica, CA" or "78704".'),
    listing_status: oneOfOr(["for_sale", "for_rent", "sold"], "for_sale", "Listings for sale, for rent, or recently sold."),
    home_types: Type.Optional(
      Type.Array(Type.Unsafe<(typeof HOME_TYPES)[number]>({ type: "string", enum: [...HOME_TYPES] }), {
        minItems: 1,
        maxItems: 7,
        uniqueItems: true,
        description: "Only these home types.",
      }),
    ),
    min_price: price("Lowest price in USD (monthly rent for for_rent); not above max_price."),
    max_price: price("Highest price in USD (monthly rent for for_rent)."),
    min_beds: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, description: "At least this many bedrooms." })),
    min_baths: Type.Optional(Type.Integer({ minimum: 1, maximum: 4, description: "At least this many bathrooms." })),
    sort: oneOfOr(SORTS, "relevance", "Order of the listings."),
    num: num(20, 10, "Listings per call."),
  },
  { additionalProperties: false },
);

export type RealestateSearchQuery = Static<typeof realestateSearchSchema>;
