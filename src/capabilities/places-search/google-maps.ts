/**
 * SerpApi `google_maps` adapter for places.search: pure mappers from the validated query and a cursor
 * to the local-results request, and from SerpApi's answer to records, filtered as the query asks.
 *
 * Paging: a provider page holds up to 20 places (`start` = 0, 20, 40…, as SerpApi's
 * `serpapi_pagination.next` gives it); Quarry returns `num` at a
 * time. The places of a fetched provider page that are not returned yet travel in the cursor
 * (`pending`), so the next `more` serves them without a provider call; once they are served, `more`
 * fetches the next provider page, up to 20 provider pages in all. SerpApi needs `ll` to page: a search
 * without `location` takes the `ll` of SerpApi's own `serpapi_pagination.next`.
 *
 * Filters checked on each place as the answer describes it: `radius_m` (a place without coordinates
 * is left out), `min_rating` (without a rating: left out), `open_now` (only places whose open state
 * says open; an unknown state does not qualify). A page can be empty while a next page exists.
 */
import { type Static, Type } from "@sinclair/typebox";
import { ProviderDrift } from "../../upstream/response-check.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import { coordinatesOf, distanceMeters, gpsCoordinates, type LatLon } from "../shared/geo.ts";
import { defined, int, num, type Obj, obj, str, strings } from "../shared/read.ts";
import { fetchedAt, nextPageParams, objects, readSerpApi, serpApiRequest } from "../shared/serpapi.ts";
import type { JsonObject, JsonValue, RecordDraft, SourcePage } from "../types.ts";
import type { PlacesSearchQuery } from "./schema.ts";

export const SOURCE = "Google Maps via SerpApi";
/** Provider pages a search may fetch (SPEC 8, "Places paging"). */
export const MAX_PROVIDER_PAGES = 20;
const DEFAULT_ZOOM = "14z";

/** `search_metadata`: when SerpApi ran the search (`fetched_at`). */
export const mapsMetadata = Type.Object({ created_at: Type.Optional(Type.String()) });

/** The fields of a place both answers carry that the records read; only its title is required. */
export const placeCommon = {
  title: Type.String(),
  place_id: Type.Optional(Type.String()),
  data_id: Type.Optional(Type.String()),
  gps_coordinates: Type.Optional(gpsCoordinates),
  address: Type.Optional(Type.String()),
  phone: Type.Optional(Type.String()),
  website: Type.Optional(Type.String()),
  open_state: Type.Optional(Type.String()),
  rating: Type.Optional(Type.Number()),
  reviews: Type.Optional(Type.Number()),
  price: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  types: Type.Optional(Type.Array(Type.String())),
};

/** A place of `local_results[]` (its `type` one label, its `hours` one label). */
export const localResult = Type.Object({ ...placeCommon, type: Type.Optional(Type.String()), hours: Type.Optional(Type.String()) });

/**
 * A place's own page (`place_results`, place-details.ts): its `type` a label or a list of them, its
 * `hours` day by day, extensions, service options and review highlights.
 */
export const placeResult = Type.Object({
  ...placeCommon,
  type: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
  plus_code: Type.Optional(Type.String()),
  hours: Type.Optional(Type.Array(Type.Record(Type.String(), Type.String()))),
  extensions: Type.Optional(Type.Array(Type.Record(Type.String(), Type.Array(Type.String())))),
  service_options: Type.Optional(Type.Record(Type.String(), Type.Boolean())),
  user_reviews: Type.Optional(Type.Object({ summary: Type.Optional(Type.Array(Type.Object({ snippet: Type.Optional(Type.String()) }))) })),
});

/**
 * A google_maps search answer: `local_results[]` and the next page's link; or, when the query names
 * one place, that place's page (`place_results`). One of the two is there (toPage checks it).
 */
export const mapsSearchAnswer = Type.Object({
  search_metadata: Type.Optional(mapsMetadata),
  local_results: Type.Optional(Type.Array(localResult)),
  place_results: Type.Optional(placeResult),
  serpapi_pagination: Type.Optional(Type.Object({ next: Type.Optional(Type.String()) })),
});
export type MapsSearchAnswer = Static<typeof mapsSearchAnswer>;

/** Where the search continues: the next provider page's offset, pages fetched so far, and places not yet returned. */
export interface PlacesCursor {
  start: number | null;
  pages: number;
  ll?: string;
  pending: RecordDraft[];
}

export function cursorOf(cursor: JsonValue): PlacesCursor {
  const c = cursor !== null && typeof cursor === "object" && !Array.isArray(cursor) ? cursor : {};
  return {
    start: typeof c.start === "number" ? c.start : c.start === null ? null : 0,
    pages: typeof c.pages === "number" ? c.pages : 0,
    ...(typeof c.ll === "string" ? { ll: c.ll } : {}),
    pending: Array.isArray(c.pending) ? (c.pending as unknown as RecordDraft[]) : [],
  };
}

function cursorJson(c: PlacesCursor): JsonValue {
  if (c.pending.length === 0 && c.start === null) return null;
  return { start: c.start, pages: c.pages, ...(c.ll === undefined ? {} : { ll: c.ll }), pending: c.pending as unknown as JsonValue[] };
}

/** `@lat,lon,zoom`; with a radius, the map's height in metres (twice the radius) instead of a zoom. */
export function llOf(query: PlacesSearchQuery): string | undefined {
  const at = query.location;
  if (at === undefined) return undefined;
  const scale = query.radius_m === undefined ? DEFAULT_ZOOM : `${Math.round(query.radius_m * 2)}m`;
  return `@${at.lat},${at.lon},${scale}`;
}

export function toRequest(query: PlacesSearchQuery, start: number, ll: string | undefined): JsonRequest<typeof mapsSearchAnswer> {
  return serpApiRequest(
    "google_maps",
    {
      type: "search",
      q: query.query,
      ll: llOf(query) ?? ll,
      hl: query.language,
      gl: query.country?.toLowerCase(),
      start,
    },
    mapsSearchAnswer,
  );
}

/**
 * The places of an answer: its `local_results`, or the one place whose page Google opened for the
 * query (its list-style `type` and day-by-day `hours` are read as the list's). Neither is drift.
 */
function placesOf(root: Obj): Obj[] {
  if (Array.isArray(root.local_results)) return objects(root, "local_results");
  const place = obj(root.place_results);
  if (place === undefined) throw new ProviderDrift("serpapi", "/local_results", "is missing");
  const types = strings(place.type);
  return [{ ...place, type: str(place.type) ?? types?.[0], types: place.types ?? types, hours: undefined }];
}

/** The next slice: pending places first (no provider call); otherwise null, meaning "fetch `start`". */
export function pendingSlice(c: PlacesCursor, num: number): SourcePage | null {
  if (c.pending.length === 0) return null;
  return { records: c.pending.slice(0, num), next: cursorJson({ ...c, pending: c.pending.slice(num) }) };
}

/** A fetched provider page: its places mapped and filtered, `num` returned, the rest pending. */
export function toPage(body: MapsSearchAnswer, query: PlacesSearchQuery, c: PlacesCursor, now: Date): SourcePage {
  const { root, noResults } = readSerpApi(body);
  const pages = c.pages + 1;
  const places = noResults ? [] : placesOf(root);
  const at = fetchedAt(root, now);
  const mapped = places.map((p) => toRecord(p, query, at));
  const kept = mapped.filter((r) => keeps(r, query));
  const next = nextPageParams(root);
  const nextStart = int(next?.get("start") ?? undefined);
  const more = next !== undefined && nextStart !== undefined && pages < MAX_PROVIDER_PAGES;
  const cursor: PlacesCursor = {
    start: more ? nextStart : null,
    pages,
    ...(more && llOf(query) === undefined && next?.get("ll") ? { ll: next.get("ll")! } : c.ll === undefined ? {} : { ll: c.ll }),
    pending: kept.slice(query.num),
  };
  const notes: string[] = [];
  if (noResults) notes.push(`Google Maps found no places for "${query.query}".`);
  if (kept.length < mapped.length) {
    notes.push(
      `${mapped.length - kept.length} of ${mapped.length} places on provider page ${pages} did not meet ${filtersText(query)}` +
        (more ? "; later pages may still hold matches (send `more`)." : "."),
    );
  }
  if (next !== undefined && pages >= MAX_PROVIDER_PAGES) notes.push(`Paging stops after ${MAX_PROVIDER_PAGES} provider pages.`);
  return { records: kept.slice(0, query.num), next: cursorJson(cursor), notes };
}

function filtersText(query: PlacesSearchQuery): string {
  const parts: string[] = [];
  if (query.radius_m !== undefined) parts.push(`radius_m ${query.radius_m} (with coordinates)`);
  if (query.min_rating !== undefined) parts.push(`min_rating ${query.min_rating}`);
  if (query.open_now === true) parts.push("open_now (an explicit open state)");
  return parts.join(", ");
}

function keeps(record: RecordDraft, query: PlacesSearchQuery): boolean {
  const s = record.summary;
  if (query.radius_m !== undefined && (typeof s.distance_m !== "number" || s.distance_m > query.radius_m)) return false;
  if (query.min_rating !== undefined && (typeof s.rating !== "number" || s.rating < query.min_rating)) return false;
  if (query.open_now === true && s.open_now !== true) return false;
  return true;
}

/**
 * Open now, from Google Maps' English open-state label: "Open ⋅ Closes 12 AM", "Closes soon ⋅ 11 PM"
 * and "Open 24 hours" are open; "Closed ⋅ Opens 7 AM Thu", "Opens soon…", "Temporarily/Permanently
 * closed" are closed; anything else (another language, no label) is unknown (undefined).
 */
export function openNowOf(state: string | undefined): boolean | undefined {
  if (state === undefined) return undefined;
  const head = state.split("⋅")[0]!.trim().toLowerCase();
  if (/^(open\b|closes soon\b|open 24 hours\b)/.test(head)) return true;
  if (/^(closed\b|opens\b|opens soon\b|temporarily closed\b|permanently closed\b|closed permanently\b)/.test(head)) return false;
  return undefined;
}

/** A Google Maps link to a place by its place id (Google's documented `?q=place_id:` form). */
export function mapsUrl(placeId: string | undefined): string | undefined {
  return placeId === undefined ? undefined : `https://www.google.com/maps/place/?q=place_id:${encodeURIComponent(placeId)}`;
}

function toRecord(p: Obj, query: PlacesSearchQuery, fetched: string): RecordDraft {
  const coords = coordinatesOf(p.gps_coordinates);
  const origin: LatLon | undefined = query.location;
  const openState = str(p.open_state);
  const rating = num(p.rating);
  const reviews = int(p.reviews);
  const placeId = str(p.place_id);
  const type = str(p.type);
  const address = str(p.address);
  const snippet = [type, address, rating === undefined ? undefined : `rated ${rating}${reviews === undefined ? "" : ` (${reviews})`}`, openState, str(p.description)]
    .filter((s): s is string => s !== undefined)
    .join(" · ");
  const summary = {
    title: str(p.title) ?? "Unnamed place",
    ...defined({
      url: mapsUrl(placeId),
      snippet: snippet === "" ? undefined : snippet,
      address,
      phone: str(p.phone),
      type,
      types: strings(p.types, 20),
      open_state: openState,
      hours: str(p.hours),
      website: str(p.website),
      rating,
      reviews,
      price_level_label: str(p.price),
      coordinates: coords === undefined ? undefined : { lat: coords.lat, lon: coords.lon },
      distance_m: origin !== undefined && coords !== undefined ? Math.round(distanceMeters(origin, coords)) : undefined,
      open_now: openNowOf(openState),
    }),
    source: SOURCE,
    fetched_at: fetched,
  };
  const ref: JsonObject = defined({ place_id: placeId, data_id: str(p.data_id), lat: coords?.lat, lon: coords?.lon });
  return { summary, ...(Object.keys(ref).length > 0 ? { ref } : {}) };
}
