/**
 * places.search `details`: SerpApi's place search (`google_maps` with `place_id`, or `type=place` and
 * `data` built from the place's data id and coordinates) mapped to contacts, hours, location and
 * amenities. Pure: request builder and body mapper.
 */
import { type Static, Type } from "@sinclair/typebox";
import type { JsonRequest } from "../../upstream/types.ts";
import type { ActionOutput } from "../framework/define.ts";
import { coordinatesOf } from "../shared/geo.ts";
import { arr, bool, clip, defined, httpUrl, int, num, type Obj, obj, str, strings } from "../shared/read.ts";
import { fetchedAt, objects, readSerpApi, serpApiRequest } from "../shared/serpapi.ts";
import type { JsonObject, Link } from "../types.ts";
import type { PlacesSearchQuery } from "./schema.ts";
import { mapsMetadata, mapsUrl, openNowOf, placeResult, SOURCE } from "./google-maps.ts";

/** The identifiers a search record keeps for its details. */
export const placeRef = Type.Object({
  place_id: Type.Optional(Type.String()),
  data_id: Type.Optional(Type.String()),
  lat: Type.Optional(Type.Number()),
  lon: Type.Optional(Type.Number()),
});
export type PlaceRef = Static<typeof placeRef>;

/** A place's page (google_maps with `place_id` or `data`): `place_results` is required. */
export const placeAnswer = Type.Object({ search_metadata: Type.Optional(mapsMetadata), place_results: placeResult });
export type PlaceAnswer = Static<typeof placeAnswer>;

/** A place by its place id, else by SerpApi's `data` form (`!4m5!3m4!1s<data_id>!8m2!3d<lat>!4d<lon>`); undefined without either. */
export function detailRequest(query: PlacesSearchQuery, ref: PlaceRef): JsonRequest<typeof placeAnswer> | undefined {
  const common = { hl: query.language, gl: query.country?.toLowerCase() };
  if (ref.place_id !== undefined) return serpApiRequest("google_maps", { place_id: ref.place_id, ...common }, placeAnswer);
  if (ref.data_id !== undefined && ref.lat !== undefined && ref.lon !== undefined) {
    return serpApiRequest("google_maps", { type: "place", data: `!4m5!3m4!1s${ref.data_id}!8m2!3d${ref.lat}!4d${ref.lon}`, ...common }, placeAnswer);
  }
  return undefined;
}

export function toDetail(body: PlaceAnswer, now = new Date()): ActionOutput {
  const { root, noResults } = readSerpApi(body);
  const place = obj(root.place_results);
  if (noResults || place === undefined) {
    return { detail: { found: false, note: "Google Maps returned no details for this place now." }, links: [] };
  }
  const coords = coordinatesOf(place.gps_coordinates);
  const website = httpUrl(place.website);
  const features = featuresOf(place);
  const openState = str(place.open_state);
  const detail: JsonObject = defined({
    name: str(place.title),
    types: strings(place.type, 20) ?? (str(place.type) === undefined ? undefined : [str(place.type)!]),
    description: str(place.description) === undefined ? undefined : clip(str(place.description)!, 1000),
    contacts: nonEmpty(defined({ phone: str(place.phone), website })),
    location: nonEmpty(defined({ address: str(place.address), plus_code: str(place.plus_code), lat: coords?.lat, lon: coords?.lon })),
    open_state: openState,
    open_now: openNowOf(openState),
    hours: hoursOf(place.hours),
    rating: num(place.rating),
    reviews: int(place.reviews),
    price_level_label: str(place.price),
    amenities: amenitiesOf(place, features),
    features,
    review_highlights: reviewHighlights(place),
    source: SOURCE,
    fetched_at: fetchedAt(root, now),
  });
  const links: Link[] = [];
  if (website !== undefined) links.push({ label: "Website", url: website });
  const maps = mapsUrl(str(place.place_id));
  if (maps !== undefined) links.push({ label: "Google Maps", url: maps });
  return { detail, links };
}

function nonEmpty(o: JsonObject): JsonObject | undefined {
  return Object.keys(o).length > 0 ? o : undefined;
}

/** `[{tuesday: "4:30AM–6:30PM"}, …]` (SerpApi's place hours) as `[{day, hours}]`. */
function hoursOf(value: unknown): JsonObject[] | undefined {
  const out: JsonObject[] = [];
  for (const entry of arr(value) ?? []) {
    for (const [day, hours] of Object.entries(obj(entry) ?? {})) {
      const h = str(hours);
      if (h !== undefined) out.push({ day, hours: h });
    }
  }
  return out.length > 0 ? out : undefined;
}

/** `extensions: [{highlights: […]}, {amenities: […]}, …]` as one object of lists. */
function featuresOf(place: Obj): JsonObject | undefined {
  const out: JsonObject = {};
  for (const group of objects(place, "extensions")) {
    for (const [name, values] of Object.entries(group)) {
      const list = strings(values, 20);
      if (list !== undefined) out[name] = list;
    }
  }
  return nonEmpty(out);
}

/** The place's amenities: its `amenities` extension, then the service options it offers. */
function amenitiesOf(place: Obj, features: JsonObject | undefined): string[] | undefined {
  const listed = Array.isArray(features?.amenities) ? (features.amenities as string[]) : [];
  const services = Object.entries(obj(place.service_options) ?? {})
    .filter(([, offered]) => bool(offered) === true)
    .map(([name]) => name.replaceAll("_", " "));
  const all = [...listed, ...services];
  return all.length > 0 ? all : undefined;
}

function reviewHighlights(place: Obj): string[] | undefined {
  const summary = objects(obj(place.user_reviews) ?? {}, "summary")
    .map((s) => str(s.snippet)?.replace(/^"|"$/g, ""))
    .filter((s): s is string => s !== undefined);
  return summary.length > 0 ? summary.slice(0, 5) : undefined;
}
