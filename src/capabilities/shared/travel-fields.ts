/**
 * Request fields the travel capabilities share (hotels, flights, places, transit): a point as
 * coordinates and an ISO 4217 currency with its default.
 */
import { Type } from "@sinclair/typebox";
import { defaulted } from "../framework/fields.ts";

/** `{lat, lon}`: latitude -90..90, longitude -180..180, both required, nothing else. */
export function latLon(description?: string) {
  return Type.Object(
    {
      lat: Type.Number({ minimum: -90, maximum: 90, description: "Latitude, -90 to 90." }),
      lon: Type.Number({ minimum: -180, maximum: 180, description: "Longitude, -180 to 180." }),
    },
    { additionalProperties: false, ...(description === undefined ? {} : { description }) },
  );
}

/** A 3-letter ISO 4217 currency code, USD when omitted (sent upper-cased). */
export function currency() {
  return defaulted(
    Type.String({ minLength: 3, maxLength: 3, pattern: "^[A-Za-z]{3}$", default: "USD", description: "ISO 4217 currency of the prices (default USD)." }),
  );
}
