/**
 * The Zillow listing API (zillow-com1 on RapidAPI) for realestate.search: pure mappers from a
 * validated query and a provider page number to `GET /propertyExtendedSearch`, and from its answer
 * to listing records and the next page. No I/O here.
 *
 * Home types: the API filters by its own type names, coarser for rentals (one name for apartments,
 * condos and co-ops; none for multi-family, land or manufactured). Quarry sends the names the
 * status allows and keeps only listings whose reported type is one asked for, so a page can be
 * short or empty while more pages remain (spec 4.6).
 */
import { type Static, Type } from "@sinclair/typebox";
import { ApiError } from "../../errors.ts";
import type { ProviderProbe } from "../../upstream/probe.ts";
import { nullish, ProviderDrift } from "../../upstream/response-check.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import type { ProviderPage } from "../framework/cursors.ts";
import { bool, defined, int, num, numeric, type Obj, obj, str } from "../shared/read.ts";
import type { JsonValue, RecordDraft } from "../types.ts";
import type { RealestateSearchQuery } from "./schema.ts";

export const SOURCE = "Zillow via RapidAPI (zillow-com1)";
export const ZILLOW = "https://www.zillow.com";

/** A Zillow property id: the API sends it as a string in listings and as a number in details. */
export const zpidValue = Type.Union([Type.String(), Type.Number()]);

/**
 * A listing of `props[]` as the records read it. The API sends null for what a listing lacks; only
 * the zpid is required (details and the record's ref need it).
 */
export const zillowListing = Type.Object({
  zpid: zpidValue,
  address: nullish(Type.String()),
  listingStatus: nullish(Type.String()),
  statusText: nullish(Type.String()),
  propertyType: nullish(Type.String()),
  price: nullish(Type.Union([Type.Number(), Type.String()])),
  currency: nullish(Type.String()),
  country: nullish(Type.String()),
  bedrooms: nullish(Type.Number()),
  bathrooms: nullish(Type.Number()),
  livingArea: nullish(Type.Number()),
  lotAreaValue: nullish(Type.Union([Type.Number(), Type.String()])),
  lotAreaUnit: nullish(Type.String()),
  daysOnZillow: nullish(Type.Number()),
  datePriceChanged: nullish(Type.Number()),
  brokerName: nullish(Type.String()),
  isShowcaseListing: nullish(Type.Boolean()),
  latitude: nullish(Type.Number()),
  longitude: nullish(Type.Number()),
  detailUrl: nullish(Type.String()),
  variableData: nullish(Type.Object({ text: nullish(Type.String()) })),
});

/**
 * A `propertyExtendedSearch` answer: `props[]` with the page counts; or, for an exact address, the
 * one property's `zpid` instead; or no listings at all (`totalResultCount` 0). toProviderPage checks
 * that one of the three is there.
 */
export const extendedSearchAnswer = Type.Object({
  props: Type.Optional(Type.Array(zillowListing)),
  currentPage: nullish(Type.Number()),
  totalPages: nullish(Type.Number()),
  totalResultCount: nullish(Type.Number()),
  zpid: Type.Optional(zpidValue),
});
export type ExtendedSearchAnswer = Static<typeof extendedSearchAnswer>;

/**
 * The API's own refusals in an HTTP 200 body (`{"message": …}` or `{"error": …}` without listings or
 * a property), before the schema; RapidAPI's 401/403/429 are the upstream client's. Shared by the
 * search and the property request.
 */
export function zillowRefusal(body: unknown, status: number): ApiError | undefined {
  const root = obj(body);
  if (status < 200 || status >= 300 || root === undefined) return undefined;
  if (root.props !== undefined || root.zpid !== undefined || int(root.totalResultCount) === 0) return undefined;
  const said = str(root.message) ?? str(root.error);
  if (said === undefined) return undefined;
  return new ApiError("provider_error", `The Zillow listing API refused the request: ${said}`, {
    retryable: false,
    hint: "Nothing was charged. The same request is likely to be refused again: check the query (a US city, state, ZIP code or neighborhood).",
  });
}

/** The API serves at most 20 pages of a search. */
export const MAX_PROVIDER_PAGE = 20;

type HomeType = RealestateSearchQuery["home_types"] extends (infer T)[] | undefined ? T : never;
type Status = RealestateSearchQuery["listing_status"];

const STATUS_TYPE: Record<Status, string> = { for_sale: "ForSale", for_rent: "ForRent", sold: "RecentlySold" };

/** `home_type` names for sale and sold searches. */
const SALE_TYPES: Record<HomeType, string> = {
  house: "Houses",
  condo: "Condos",
  townhouse: "Townhomes",
  multi_family: "Multi-family",
  apartment: "Apartments",
  land: "LotsLand",
  manufactured: "Manufactured",
};

/** `home_type` names for rentals (the API has no rental name for the others). */
const RENT_TYPES: Partial<Record<HomeType, string>> = {
  house: "Houses",
  townhouse: "Townhomes",
  condo: "Apartments_Condos_Co-ops",
  apartment: "Apartments_Condos_Co-ops",
};

/** The API's `propertyType` as Quarry's home type. */
const REPORTED_TYPE: Record<string, HomeType> = {
  SINGLE_FAMILY: "house",
  CONDO: "condo",
  TOWNHOUSE: "townhouse",
  MULTI_FAMILY: "multi_family",
  APARTMENT: "apartment",
  LOT: "land",
  MANUFACTURED: "manufactured",
};

const SORT: Record<Exclude<RealestateSearchQuery["sort"], "relevance">, { sale: string; rent: string }> = {
  newest: { sale: "Newest", rent: "Newest" },
  price_asc: { sale: "Price_Low_High", rent: "Payment_Low_High" },
  price_desc: { sale: "Price_High_Low", rent: "Payment_High_Low" },
  beds: { sale: "Bedrooms", rent: "Bedrooms" },
  baths: { sale: "Bathrooms", rent: "Bathrooms" },
  sqft: { sale: "Square_Feet", rent: "Square_Feet" },
};

/** The `home_type` param: the names of the types asked for, or none when the status cannot name one of them. */
function homeTypeParam(query: RealestateSearchQuery): string | undefined {
  if (query.home_types === undefined) return undefined;
  const table: Partial<Record<HomeType, string>> = query.listing_status === "for_rent" ? RENT_TYPES : SALE_TYPES;
  const names = query.home_types.map((t) => table[t]);
  if (names.some((n) => n === undefined)) return undefined;
  return [...new Set(names)].join(",");
}

export function toRequest(query: RealestateSearchQuery, page: number): JsonRequest<typeof extendedSearchAnswer> {
  const rent = query.listing_status === "for_rent";
  return {
    provider: "realestate",
    method: "GET",
    path: "/propertyExtendedSearch",
    response: extendedSearchAnswer,
    refusal: zillowRefusal,
    query: {
      location: query.query,
      status_type: STATUS_TYPE[query.listing_status],
      home_type: homeTypeParam(query),
      [rent ? "rentMinPrice" : "minPrice"]: query.min_price,
      [rent ? "rentMaxPrice" : "maxPrice"]: query.max_price,
      bedsMin: query.min_beds,
      bathsMin: query.min_baths,
      sort: query.sort === "relevance" ? undefined : SORT[query.sort][rent ? "rent" : "sale"],
      page,
    },
  };
}

/** One provider page: its listings (of the home types asked for), and the next page number. */
export function toProviderPage(
  body: ExtendedSearchAnswer,
  page: number,
  query: RealestateSearchQuery,
  now: Date,
): ProviderPage<RecordDraft> & { left: number } {
  const root: Obj = body;
  const props = root.props;
  if (!Array.isArray(props)) {
    // An exact address answers a zpid instead of a list: not a listing search.
    if (root.zpid !== undefined || int(root.totalResultCount) === 0) return { items: [], next: null, left: 0 };
    throw new ProviderDrift("realestate", "/props", "is missing");
  }
  const fetchedAt = now.toISOString();
  const all = props.map(obj).filter((p): p is Obj => p !== undefined);
  const wanted = query.home_types === undefined ? undefined : new Set<string>(query.home_types);
  const kept = wanted === undefined ? all : all.filter((p) => wanted.has(REPORTED_TYPE[str(p.propertyType) ?? ""] ?? ""));
  const items = kept.map((p) => toRecord(p, fetchedAt));
  const current = int(root.currentPage) ?? page;
  const pages = int(root.totalPages) ?? current;
  const next: JsonValue = current < Math.min(pages, MAX_PROVIDER_PAGE) ? current + 1 : null;
  return { items, next, left: all.length - kept.length };
}

/** "street, city, ST 12345": the parts of a US address line, when it has exactly that shape. */
export function addressParts(address: string | undefined): { street?: string; city?: string; state?: string; zipcode?: string } {
  const m = /^(?:(.+?), )?([^,]+), ([A-Z]{2}) (\d{5})(?:-\d{4})?$/.exec(address ?? "");
  if (m === null) return {};
  return defined({ street: m[1], city: m[2], state: m[3], zipcode: m[4] }) as Record<string, string>;
}

/** What the listing's price is: asking price, monthly rent, reported sale price, or unknown. */
export function priceKind(status: string | undefined, price: number | undefined): string {
  if (price === undefined) return "unknown";
  if (status === "FOR_SALE") return "listing_price";
  if (status === "FOR_RENT") return "monthly_rent";
  if (status === "RECENTLY_SOLD" || status === "SOLD") return "reported_sold_price";
  return "unknown";
}

/** Epoch milliseconds as a calendar day (UTC). */
export function dayOf(ms: unknown): string | undefined {
  const n = num(ms);
  return n === undefined || n <= 0 ? undefined : new Date(n).toISOString().slice(0, 10);
}

/** A lot area in square feet (the API reports sqft or acres). */
function lotSqft(value: number | undefined, unit: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (unit === "sqft") return value;
  if (unit === "acres") return Math.round(value * 43_560);
  return undefined;
}

export function listingUrl(path: unknown): string | undefined {
  const p = str(path);
  if (p === undefined) return undefined;
  if (/^https?:\/\//i.test(p)) return p;
  return p.startsWith("/") ? ZILLOW + p : undefined;
}

function toRecord(p: Obj, fetchedAt: string): RecordDraft {
  const address = str(p.address);
  const zpid = str(p.zpid) ?? (int(p.zpid) === undefined ? undefined : String(int(p.zpid)));
  const status = str(p.listingStatus);
  const price = num(p.price);
  const reported = str(p.propertyType);
  const beds = num(p.bedrooms);
  const baths = num(p.bathrooms);
  const sqft = num(p.livingArea);
  const lotUnit = str(p.lotAreaUnit);
  const days = int(p.daysOnZillow);
  const ageText = str(obj(p.variableData)?.text);
  const facts = [beds === undefined ? undefined : `${beds} bd`, baths === undefined ? undefined : `${baths} ba`, sqft === undefined ? undefined : `${sqft.toLocaleString("en-US")} sqft`, ageText];
  const snippet = facts.filter((f) => f !== undefined).join(" · ");
  const summary: RecordDraft["summary"] = {
    title: address ?? `Zillow listing ${zpid ?? "without an id"}`,
    ...defined({
      url: listingUrl(p.detailUrl),
      snippet: snippet === "" ? undefined : snippet,
      ...addressParts(address),
      country: str(p.country),
      home_type: reported === undefined ? undefined : (REPORTED_TYPE[reported] ?? reported.toLowerCase()),
      home_status: status,
      status_text: str(p.statusText),
      beds,
      baths,
      sqft,
      lot_sqft: lotSqft(numeric(p.lotAreaValue), lotUnit),
      lot_area_unit: numeric(p.lotAreaValue) === undefined ? undefined : lotUnit,
      days_on_zillow: days !== undefined && days >= 0 ? days : undefined,
      date_price_changed: dayOf(p.datePriceChanged),
      broker: str(p.brokerName),
      currency: str(p.currency),
      is_showcase: bool(p.isShowcaseListing),
      price,
      price_label: str(p.price),
      latitude: num(p.latitude),
      longitude: num(p.longitude),
    }),
    price_kind: priceKind(status, price),
    source: SOURCE,
    fetched_at: fetchedAt,
  };
  return { summary, ...(zpid === undefined ? {} : { ref: { zpid } }) };
}

/**
 * The live check's probe: one listing page of a search that always has listings (one RapidAPI
 * request), built and checked as realestate.search's own.
 */
export const zillowProbe: ProviderProbe = {
  provider: "realestate",
  what: "one listing page (Santa Monica, CA, for sale; one RapidAPI request)",
  request: toRequest({ query: "Santa Monica, CA", listing_status: "for_sale", sort: "relevance", num: 1 }, 1),
};
