/**
 * navigation.route's request schema (spec 4.6) and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { flag, oneOfOr } from "../framework/fields.ts";
import { placeSchema } from "../shared/places.ts";
import { MODES } from "../shared/routing.ts";

export const navigationRouteSchema = Type.Object(
  {
    origin: placeSchema("Where the route starts."),
    destination: placeSchema("Where the route ends."),
    waypoints: Type.Optional(
      Type.Array(placeSchema("A stop on the way."), { maxItems: 10, description: "Stops between origin and destination, in order (at most 10)." }),
    ),
    mode: oneOfOr(MODES, "driving", "`driving`, `walking` or `cycling` (the fallback engine routes cars only, and says so)."),
    alternatives: flag(false, "Ask for alternative routes (between an origin and a destination without waypoints); each is one record."),
  },
  { additionalProperties: false },
);

export type NavigationRouteQuery = Static<typeof navigationRouteSchema>;
