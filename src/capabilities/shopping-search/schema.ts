/**
 * shopping.search's request schema (spec 4.6) and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { country, language, num, oneOf, text } from "../framework/fields.ts";

const price = (description: string) => Type.Optional(Type.Number({ minimum: 0, maximum: 100_000_000, description }));

export const shoppingSearchSchema = Type.Object(
  {
    query: text(1, 500, 'What to buy, e.g. "espresso machine".'),
    country: country("Country of the store, ISO 3166-1 alpha-2 (e.g. us, de); sent as Google's `gl`."),
    language: language("Interface language code, e.g. en, de, pt-BR; sent as Google's `hl`."),
    location: Type.Optional(text(1, 200, 'Where the search comes from, e.g. "Austin, Texas, United States".')),
    filter_id: Type.Optional(
      Type.Unsafe<string | null>({
        type: ["string", "null"],
        minLength: 1,
        maxLength: 200,
        description:
          "Update only: the `id` of one of this search's `filters[]` to apply (one at a time; null clears it). Not with " +
          "`sort` or `condition`; a change of query, country, language or location clears it.",
      }),
    ),
    num: num(25, 10, "Products per call."),
    price_min: price("Lowest item price, excluding delivery, in the store's currency."),
    price_max: price("Highest item price, excluding delivery, in the store's currency."),
    condition: oneOf(
      ["new", "used"],
      "Item condition, checked on each product as Google marks it (`used`: marked second-hand; `new`: not marked); a page can then be short or empty while `has_more` is true.",
    ),
    sort: oneOf(
      ["price_low_to_high", "price_high_to_low", "rating_high_to_low"],
      "Order of the products; Google's relevance when omitted. Google Shopping has no rating order now: `rating_high_to_low` keeps Google's order and says so in `notes[]`.",
    ),
  },
  { additionalProperties: false },
);

export type ShoppingSearchQuery = Static<typeof shoppingSearchSchema>;
