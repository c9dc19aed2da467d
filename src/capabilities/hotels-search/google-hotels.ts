/**
 * SerpApi `google_hotels` adapter for hotels.search: pure mappers from the validated query (and a
 * `{token}` cursor) to the request, and from SerpApi's answer to records. No I/O; the client adds
 * `api_key`.
 *
 * Filters: `sort`, `max_price`, `min_rating` (as SerpApi's 3.5/4.0/4.5 steps) and `vacation_rental` are
 * sent to SerpApi; `min_rating`, `max_price`, `amenities` and `property_type` are also checked on each
 * property as the answer describes it (a property without the value checked is left out), because
 * the source's own filters are coarser (rating steps, amenity ids) or absent (hotels only).
 */
import { type Static, Type } from "@sinclair/typebox";
import { ProviderDrift } from "../../upstream/response-check.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import { coordinatesOf, gpsCoordinates } from "../shared/geo.ts";
import { arr, defined, int, num, type Obj, obj, str, strings } from "../shared/read.ts";
import { cursorField, echoedParameters, nextPageToken, objects, readSerpApi, type SerpParams, serpApiRequest } from "../shared/serpapi.ts";
import type { JsonValue, RecordDraft, SourcePage } from "../types.ts";
import type { HotelsSearchQuery } from "./schema.ts";
import { type Occupancy, occupancyKeys, propertyFindings, requestedOccupancy, searchFindings } from "./occupancy.ts";

export const SOURCE = "Google Hotels via SerpApi";

/** A price as SerpApi gives it (`rate_per_night`, `total_rate`): the mappers read the number. */
export const hotelRate = Type.Object({ extracted_lowest: Type.Optional(Type.Number()) });

/** SerpApi's echo of the request it ran (`search_parameters`): the currency and occupancy it applied (occupancy.ts). */
export const stayEcho = Type.Object({
  currency: Type.Optional(Type.String()),
  adults: Type.Optional(Type.Union([Type.Number(), Type.String()])),
  children: Type.Optional(Type.Union([Type.Number(), Type.String()])),
  children_ages: Type.Optional(Type.Union([Type.String(), Type.Number(), Type.Array(Type.Union([Type.Number(), Type.String()]))])),
});

/** `search_metadata`: when SerpApi ran the search (`fetched_at`). */
export const serpMetadata = Type.Object({ created_at: Type.Optional(Type.String()) });

/**
 * The fields of a property the mappers read (records, the checks of `passes`, occupancy). Only its
 * name is required: a property without one cannot be shown; SerpApi leaves out what a property lacks.
 */
export const hotelProperty = Type.Object({
  name: Type.String(),
  type: Type.Optional(Type.String()),
  link: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  address: Type.Optional(Type.String()),
  property_token: Type.Optional(Type.String()),
  gps_coordinates: Type.Optional(gpsCoordinates),
  rate_per_night: Type.Optional(hotelRate),
  total_rate: Type.Optional(hotelRate),
  overall_rating: Type.Optional(Type.Number()),
  reviews: Type.Optional(Type.Number()),
  extracted_hotel_class: Type.Optional(Type.Number()),
  amenities: Type.Optional(Type.Array(Type.String())),
  essential_info: Type.Optional(Type.Array(Type.String())),
  prices: Type.Optional(Type.Array(Type.Object({ num_guests: Type.Optional(Type.Number()) }))),
});

/**
 * A google_hotels search answer: `properties[]` and the next page's token; or, when Google opens one
 * property's page for the query (SerpApi's `hotels_results_state` "Showing results for property
 * details"), that property's fields at the top level. One of the two is there (toPage checks it).
 */
export const hotelsAnswer = Type.Object({
  ...Type.Partial(hotelProperty).properties,
  search_metadata: Type.Optional(serpMetadata),
  search_parameters: Type.Optional(stayEcho),
  properties: Type.Optional(Type.Array(hotelProperty)),
  serpapi_pagination: Type.Optional(Type.Object({ next_page_token: Type.Optional(Type.String()) })),
  next_page_token: Type.Optional(Type.String()),
});
export type HotelsAnswer = Static<typeof hotelsAnswer>;

const SORT_BY: Record<string, number | undefined> = { relevance: undefined, lowest_price: 3, highest_rating: 8, most_reviewed: 13 };

/** SerpApi's `rating` filter: 7 = 3.5+, 8 = 4.0+, 9 = 4.5+; the highest step not above `min_rating`. */
export function ratingStep(minRating: number | undefined): number | undefined {
  if (minRating === undefined) return undefined;
  if (minRating >= 4.5) return 9;
  if (minRating >= 4) return 8;
  if (minRating >= 3.5) return 7;
  return undefined;
}

/** The stay's parameters, shared by the list search and the property-details search. */
export function stayParams(query: HotelsSearchQuery): SerpParams {
  const ages = query.children_ages ?? [];
  return {
    q: query.destination,
    check_in_date: query.check_in,
    check_out_date: query.check_out,
    adults: query.adults,
    children: ages.length,
    children_ages: ages.length > 0 ? ages.join(",") : undefined,
    currency: query.currency.toUpperCase(),
    vacation_rentals: query.property_type === "vacation_rental" ? true : undefined,
  };
}

export function toRequest(query: HotelsSearchQuery, cursor: JsonValue): JsonRequest<typeof hotelsAnswer> {
  const token = cursorField(cursor, "token");
  return serpApiRequest(
    "google_hotels",
    {
      ...stayParams(query),
      sort_by: query.sort === undefined ? undefined : SORT_BY[query.sort],
      max_price: query.max_price === undefined ? undefined : Math.ceil(query.max_price),
      rating: ratingStep(query.min_rating),
      next_page_token: typeof token === "string" ? token : undefined,
    },
    hotelsAnswer,
  );
}

/**
 * The properties of an answer: its list, or the one property whose page Google opened for the query.
 * An answer with neither is drift (SerpApi's "no results" answer never reaches here as one).
 */
function propertiesOf(root: Obj): Obj[] {
  if (Array.isArray(root.properties)) return objects(root, "properties");
  if (str(root.name) !== undefined) return [root];
  throw new ProviderDrift("serpapi", "/properties", "is missing");
}

export function toPage(body: HotelsAnswer, query: HotelsSearchQuery): SourcePage {
  const { root, noResults } = readSerpApi(body);
  const token = nextPageToken(root);
  const next = token === undefined ? null : { token };
  if (noResults) return { records: [], next: null, notes: [`Google Hotels found no stays for "${query.destination}" on these dates.`] };
  const requested = requestedOccupancy(query);
  const search = searchFindings(echoedParameters(root), requested);
  const currency = str(echoedParameters(root)?.currency)?.toUpperCase() ?? query.currency.toUpperCase();
  const properties = propertiesOf(root);
  const kept = properties.filter((p) => passes(p, query));
  const notes: string[] = [];
  if (kept.length < properties.length) {
    notes.push(
      `${properties.length - kept.length} of ${properties.length} properties on this provider page did not meet ${filtersText(query)}` +
        (next === null ? "." : "; more pages may still hold matches (send `more`)."),
    );
  }
  if (search === undefined) notes.push("The source's answer does not say which occupancy it applied (occupancy_status: unconfirmed).");
  return { records: kept.map((p) => toRecord(p, requested, search, currency)), next, notes };
}

function filtersText(query: HotelsSearchQuery): string {
  const parts: string[] = [];
  if (query.min_rating !== undefined) parts.push(`min_rating ${query.min_rating}`);
  if (query.max_price !== undefined) parts.push(`max_price ${query.max_price}`);
  if (query.amenities !== undefined) parts.push(`amenities ${query.amenities.join(", ")}`);
  if (query.property_type !== undefined) parts.push(`property_type ${query.property_type}`);
  return parts.join(", ");
}

const TYPE_NAMES: Record<string, string> = { hotel: "hotel", vacation_rental: "vacation rental" };

/** Whether a property, as the answer describes it, meets the filters Quarry checks itself. */
export function passes(p: Obj, query: HotelsSearchQuery): boolean {
  if (query.property_type !== undefined && str(p.type)?.toLowerCase() !== TYPE_NAMES[query.property_type]) return false;
  if (query.min_rating !== undefined) {
    const rating = num(p.overall_rating);
    if (rating === undefined || rating < query.min_rating) return false;
  }
  if (query.max_price !== undefined) {
    const price = num(obj(p.rate_per_night)?.extracted_lowest);
    if (price === undefined || price > query.max_price) return false;
  }
  if (query.amenities !== undefined) {
    const listed = (strings(p.amenities) ?? []).map((a) => a.toLowerCase());
    for (const wanted of query.amenities) if (!listed.some((a) => a.includes(wanted.toLowerCase()))) return false;
  }
  return true;
}

function toRecord(p: Obj, requested: Occupancy, search: string[] | undefined, currency: string): RecordDraft {
  const name = str(p.name) ?? "Unnamed property";
  const coords = coordinatesOf(p.gps_coordinates);
  const perNight = num(obj(p.rate_per_night)?.extracted_lowest);
  const total = num(obj(p.total_rate)?.extracted_lowest);
  const rating = num(p.overall_rating);
  const reviews = int(p.reviews);
  const hotelClass = int(p.extracted_hotel_class);
  const type = str(p.type);
  const summary = {
    title: name,
    ...defined({
      url: str(p.link),
      snippet: snippetOf(p, type, perNight, currency, rating, reviews, hotelClass),
      price_per_night: perNight,
      total_price: total,
      currency: perNight !== undefined || total !== undefined ? currency : undefined,
      rating,
      reviews,
      hotel_class: hotelClass !== undefined && hotelClass >= 1 && hotelClass <= 5 ? hotelClass : undefined,
      type,
      amenities: strings(p.amenities, 30),
      location: str(p.address),
      lat: coords?.lat,
      lon: coords?.lon,
    }),
    ...occupancyKeys(search, propertyFindings(p, requested), requested),
  };
  const token = str(p.property_token);
  return { summary, ...(token === undefined ? {} : { ref: { property_token: token } }) };
}

function snippetOf(
  p: Obj,
  type: string | undefined,
  perNight: number | undefined,
  currency: string,
  rating: number | undefined,
  reviews: number | undefined,
  hotelClass: number | undefined,
): string | undefined {
  const parts: string[] = [];
  const kind = [hotelClass === undefined ? undefined : `${hotelClass}-star`, type].filter(Boolean).join(" ");
  if (kind !== "") parts.push(kind);
  if (perNight !== undefined) parts.push(`${perNight} ${currency} a night`);
  if (rating !== undefined) parts.push(`rated ${rating}${reviews === undefined ? "" : ` (${reviews} reviews)`}`);
  const description = str(p.description);
  if (description !== undefined) parts.push(description);
  const essential = (arr(p.essential_info) ?? []).map(str).filter((s): s is string => s !== undefined);
  if (essential.length > 0) parts.push(essential.slice(0, 4).join(", "));
  return parts.length > 0 ? parts.join(" · ") : undefined;
}
