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
import type { UpstreamRequest } from "../../upstream/types.ts";
import { coordinatesOf } from "../shared/geo.ts";
import { arr, defined, int, num, type Obj, obj, str, strings } from "../shared/read.ts";
import { cursorField, echoedParameters, nextPageToken, objects, readSerpApi, type SerpParams, serpApiRequest } from "../shared/serpapi.ts";
import type { JsonValue, RecordDraft, SourcePage } from "../types.ts";
import type { HotelsSearchQuery } from "./capability.ts";
import { type Occupancy, occupancyKeys, propertyFindings, requestedOccupancy, searchFindings } from "./occupancy.ts";

export const SOURCE = "Google Hotels via SerpApi";

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

export function toRequest(query: HotelsSearchQuery, cursor: JsonValue): UpstreamRequest {
  const token = cursorField(cursor, "token");
  return serpApiRequest("google_hotels", {
    ...stayParams(query),
    sort_by: query.sort === undefined ? undefined : SORT_BY[query.sort],
    max_price: query.max_price === undefined ? undefined : Math.ceil(query.max_price),
    rating: ratingStep(query.min_rating),
    next_page_token: typeof token === "string" ? token : undefined,
  });
}

export function toPage(status: number, body: unknown, query: HotelsSearchQuery): SourcePage {
  const { root, noResults } = readSerpApi(status, body);
  const token = nextPageToken(root);
  const next = token === undefined ? null : { token };
  if (noResults) return { records: [], next: null, notes: [`Google Hotels found no stays for "${query.destination}" on these dates.`] };
  const requested = requestedOccupancy(query);
  const search = searchFindings(echoedParameters(root), requested);
  const currency = str(echoedParameters(root)?.currency)?.toUpperCase() ?? query.currency.toUpperCase();
  const properties = objects(root, "properties");
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
