/**
 * places.search's request schema (spec 4.6) and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { country, language, num, text } from "../framework/fields.ts";
import { latLon } from "../shared/travel-fields.ts";

export const placesSearchSchema = Type.Object(
  {
    query: text(1, 300, "What to find, e.g. \"coffee\", \"pharmacy open late\", \"Louvre\".", { notBlank: true }),
    location: Type.Optional(latLon("Search around this point; records then carry `distance_m` from it.")),
    radius_m: Type.Optional(
      Type.Number({ minimum: 62, maximum: 50000, description: "Keep only places within this many metres of `location` (62-50000); requires `location`; places without coordinates are left out." }),
    ),
    country: country(),
    language: language(),
    min_rating: Type.Optional(Type.Number({ minimum: 0, maximum: 5, description: "Lowest rating (0-5); places without a rating are left out." })),
    open_now: Type.Optional(Type.Boolean({ description: "Only places whose source says they are open now; an unknown open state does not qualify." })),
    num: num(20, 10),
  },
  { additionalProperties: false },
);

export type PlacesSearchQuery = Static<typeof placesSearchSchema>;
