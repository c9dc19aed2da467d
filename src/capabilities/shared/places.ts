/**
 * A place as navigation requests take it (spec 4.6 navigation.route / navigation.matrix): a string
 * that Nominatim geocodes, or coordinates `{lat, lon}`. The schema piece, its static type, and how a
 * place is named in titles and records (the caller's own string, or `lat,lon`).
 */
import { type Static, Type } from "@sinclair/typebox";
import { NOT_BLANK_PATTERN } from "../framework/fields.ts";

/** `{lat, lon}` in WGS84 degrees, both required. */
export function coordinatesObject(description?: string) {
  return Type.Object(
    {
      lat: Type.Number({ minimum: -90, maximum: 90, description: "Latitude, WGS84 degrees (-90 to 90)." }),
      lon: Type.Number({ minimum: -180, maximum: 180, description: "Longitude, WGS84 degrees (-180 to 180)." }),
    },
    { additionalProperties: false, ...(description === undefined ? {} : { description }) },
  );
}

const coordinatesSchema = coordinatesObject();

export type Coordinates = Static<typeof coordinatesSchema>;

/**
 * A place: a name or address (1-300 characters, not blank) geocoded with Nominatim, or coordinates.
 * One schema whose `type` allows both (string keywords apply to strings, object keywords to objects),
 * not a union: a caller's mistake then gets the one message of its own kind ("" → too short,
 * `{lat: 91}` → at /lat), instead of the other branch's "must be object".
 */
export function placeSchema(description: string) {
  const { properties, required } = coordinatesSchema;
  return Type.Unsafe<Place>({
    type: ["string", "object"],
    minLength: 1,
    maxLength: 300,
    pattern: NOT_BLANK_PATTERN,
    properties,
    required,
    additionalProperties: false,
    description:
      `${description} A place name or address (string, 1-300 characters, geocoded with OpenStreetMap Nominatim, ` +
      'first match), or coordinates {"lat": -90..90, "lon": -180..180}.',
  });
}

export type Place = string | Coordinates;

/** A place with its coordinates known: `label` names it in records (the caller's string, or lat,lon). */
export interface Located extends Coordinates {
  label: string;
  /** What the geocoder matched, for a string place. */
  matched?: string;
  /** The place was a name, geocoded with Nominatim (its records credit Nominatim too). */
  geocoded?: true;
}

/** `lat,lon` with at most 6 decimals (about 0.1 m), as a label. */
export function coordinateLabel(c: Coordinates): string {
  return `${round(c.lat, 6)},${round(c.lon, 6)}`;
}

export function placeLabel(place: Place): string {
  return typeof place === "string" ? place.trim() : coordinateLabel(place);
}

export function round(value: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
}
