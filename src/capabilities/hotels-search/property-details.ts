/**
 * hotels.search `details`: SerpApi's property-details search (`google_hotels` with `property_token` and
 * the stay's parameters) mapped to a bounded detail: description, address, phone, times, nearby places
 * with how to reach them, and the booking offers with their links, plus whether the answer fits the
 * requested occupancy. Pure: request builder and body mapper.
 */
import { type Static, Type } from "@sinclair/typebox";
import type { JsonRequest } from "../../upstream/types.ts";
import type { ActionOutput } from "../framework/define.ts";
import { coordinatesOf, gpsCoordinates } from "../shared/geo.ts";
import { arr, bool, clip, defined, httpUrl, int, num, type Obj, obj, str, strings } from "../shared/read.ts";
import { echoedParameters, fetchedAt, objects, readSerpApi, serpApiRequest } from "../shared/serpapi.ts";
import type { JsonObject, Link } from "../types.ts";
import type { HotelsSearchQuery } from "./schema.ts";
import { hotelRate, SOURCE, serpMetadata, stayEcho, stayParams } from "./google-hotels.ts";
import { occupancyKeys, propertyFindings, requestedOccupancy, searchFindings } from "./occupancy.ts";

const MAX_NEARBY = 10;
const MAX_OFFERS = 15;
const MAX_DESCRIPTION = 2000;

/** A booking offer (`featured_prices[]`, `prices[]`): who sells the stay, at what price, for whom. */
const bookingOffer = Type.Object({
  source: Type.Optional(Type.String()),
  link: Type.Optional(Type.String()),
  official: Type.Optional(Type.Boolean()),
  rate_per_night: Type.Optional(hotelRate),
  total_rate: Type.Optional(hotelRate),
  num_guests: Type.Optional(Type.Number()),
  free_cancellation: Type.Optional(Type.Boolean()),
});

/**
 * SerpApi's property-details answer (google_hotels with `property_token`): the property at the top
 * level, its name required (a details answer without one describes nothing).
 */
export const propertyDetailsAnswer = Type.Object({
  search_metadata: Type.Optional(serpMetadata),
  search_parameters: Type.Optional(stayEcho),
  name: Type.String(),
  type: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  address: Type.Optional(Type.String()),
  phone: Type.Optional(Type.String()),
  link: Type.Optional(Type.String()),
  gps_coordinates: Type.Optional(gpsCoordinates),
  check_in_time: Type.Optional(Type.String()),
  check_out_time: Type.Optional(Type.String()),
  extracted_hotel_class: Type.Optional(Type.Number()),
  overall_rating: Type.Optional(Type.Number()),
  reviews: Type.Optional(Type.Number()),
  rate_per_night: Type.Optional(hotelRate),
  total_rate: Type.Optional(hotelRate),
  typical_price_range: Type.Optional(
    Type.Object({ extracted_lowest: Type.Optional(Type.Number()), extracted_highest: Type.Optional(Type.Number()) }),
  ),
  amenities: Type.Optional(Type.Array(Type.String())),
  essential_info: Type.Optional(Type.Array(Type.String())),
  nearby_places: Type.Optional(
    Type.Array(
      Type.Object({
        name: Type.Optional(Type.String()),
        category: Type.Optional(Type.String()),
        rating: Type.Optional(Type.Number()),
        transportations: Type.Optional(Type.Array(Type.Object({ type: Type.Optional(Type.String()), duration: Type.Optional(Type.String()) }))),
      }),
    ),
  ),
  featured_prices: Type.Optional(Type.Array(bookingOffer)),
  prices: Type.Optional(Type.Array(bookingOffer)),
});
export type PropertyDetailsAnswer = Static<typeof propertyDetailsAnswer>;

export function detailRequest(query: HotelsSearchQuery, propertyToken: string): JsonRequest<typeof propertyDetailsAnswer> {
  return serpApiRequest("google_hotels", { ...stayParams(query), property_token: propertyToken }, propertyDetailsAnswer);
}

export function toDetail(body: PropertyDetailsAnswer, query: HotelsSearchQuery, now = new Date()): ActionOutput {
  const { root, noResults } = readSerpApi(body);
  const name = str(root.name);
  if (noResults || name === undefined) {
    return { detail: { found: false, note: "Google Hotels returned no details for this property now; it may no longer be offered for these dates." }, links: [] };
  }
  const requested = requestedOccupancy(query);
  const echo = echoedParameters(root);
  const currency = str(echo?.currency)?.toUpperCase() ?? query.currency.toUpperCase();
  const coords = coordinatesOf(root.gps_coordinates);
  const offers = offersOf(root);
  const website = httpUrl(root.link);
  const detail: JsonObject = defined({
    name,
    type: str(root.type),
    description: clip(str(root.description) ?? "", MAX_DESCRIPTION) || undefined,
    address: str(root.address),
    phone: str(root.phone),
    website,
    lat: coords?.lat,
    lon: coords?.lon,
    check_in_time: str(root.check_in_time),
    check_out_time: str(root.check_out_time),
    hotel_class: int(root.extracted_hotel_class),
    rating: num(root.overall_rating),
    reviews: int(root.reviews),
    currency,
    price_per_night: num(obj(root.rate_per_night)?.extracted_lowest),
    total_price: num(obj(root.total_rate)?.extracted_lowest),
    typical_price_range: rangeOf(obj(root.typical_price_range)),
    amenities: strings(root.amenities, 50),
    nearby_places: nearbyOf(root),
    booking_offers: offers.length > 0 ? offers : undefined,
    booking_link: offers.find((o) => typeof o.link === "string")?.link ?? website,
    source: SOURCE,
    fetched_at: fetchedAt(root, now),
  });
  Object.assign(detail, occupancyKeys(searchFindings(echo, requested), propertyFindings(root, requested), requested));
  const links: Link[] = [];
  if (website !== undefined) links.push({ label: "Property website", url: website });
  for (const offer of offers) {
    if (typeof offer.link === "string" && links.length < 6) links.push({ label: `Book with ${String(offer.source ?? "offer")}`, url: offer.link });
  }
  return { detail, links };
}

function rangeOf(range: Obj | undefined): JsonObject | undefined {
  const low = num(range?.extracted_lowest);
  const high = num(range?.extracted_highest);
  return low === undefined && high === undefined ? undefined : defined({ lowest: low, highest: high });
}

function nearbyOf(root: Obj): JsonObject[] | undefined {
  const places = objects(root, "nearby_places")
    .slice(0, MAX_NEARBY)
    .map((p) =>
      defined({
        name: str(p.name),
        category: str(p.category),
        rating: num(p.rating),
        how_to_get_there: routesOf(p.transportations),
      }),
    )
    .filter((p) => p.name !== undefined);
  return places.length > 0 ? places : undefined;
}

function routesOf(value: unknown): JsonObject[] | undefined {
  const routes = (arr(value) ?? [])
    .map((t) => obj(t))
    .filter((t): t is Obj => t !== undefined)
    .map((t) => defined({ mode: str(t.type), duration: str(t.duration) }));
  return routes.length > 0 ? routes : undefined;
}

/** Featured offers first, then the other prices; one per source. */
function offersOf(root: Obj): JsonObject[] {
  const seen = new Set<string>();
  const out: JsonObject[] = [];
  for (const offer of [...objects(root, "featured_prices"), ...objects(root, "prices")]) {
    const source = str(offer.source);
    if (source === undefined || seen.has(source)) continue;
    seen.add(source);
    out.push(
      defined({
        source,
        link: httpUrl(offer.link),
        official: bool(offer.official),
        price_per_night: num(obj(offer.rate_per_night)?.extracted_lowest),
        total_price: num(obj(offer.total_rate)?.extracted_lowest),
        guests: int(offer.num_guests),
        free_cancellation: bool(offer.free_cancellation),
      }),
    );
    if (out.length === MAX_OFFERS) break;
  }
  return out;
}
