/**
 * navigation.matrix's request schema (spec 4.6) and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { oneOfOr } from "../framework/fields.ts";
import { placeSchema } from "../shared/places.ts";
import { MODES } from "../shared/routing.ts";

export const navigationMatrixSchema = Type.Object(
  {
    locations: Type.Array(placeSchema("One place of the matrix."), {
      minItems: 2,
      maxItems: 25,
      description: "The places, 2 to 25; the matrix has one row (from) and one column (to) per place, in this order.",
    }),
    mode: oneOfOr(MODES, "driving", "`driving`, `walking` or `cycling` (the fallback engine routes cars only, and says so)."),
  },
  { additionalProperties: false },
);

export type NavigationMatrixQuery = Static<typeof navigationMatrixSchema>;
