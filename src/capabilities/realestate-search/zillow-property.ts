/**
 * realestate.search `details`: one property from the Zillow listing API's `GET /property?zpid=`,
 * mapped to its facts, its reported sale history and the listing link. The last sale is what the
 * API reports as such (`lastSoldPrice`, `dateSold`): when it reports none, both stay unknown
 * (null), never filled from the price history or an estimate. Pure mappers; no I/O.
 */
import { ApiError } from "../../errors.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import { arr, defined, int, num, type Obj, obj, str, strings } from "../shared/read.ts";
import type { JsonObject, JsonValue, Link } from "../types.ts";
import { dayOf, listingUrl, SOURCE } from "./zillow-search.ts";

const MAX_HISTORY = 30;

export function propertyRequest(zpid: string): UpstreamRequest {
  return { provider: "realestate", method: "GET", path: "/property", query: { zpid } };
}

function historyEntry(e: Obj): JsonObject {
  return defined({
    date: str(e.date) ?? dayOf(e.time),
    event: str(e.event),
    price: num(e.price),
    price_per_sqft: num(e.pricePerSquareFoot),
    source: str(e.source),
  });
}

/** Facts of a `resoFacts` object kept as the API lists them (strings, string lists, numbers, flags). */
function resoFacts(value: unknown): JsonObject | undefined {
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(obj(value) ?? {})) {
    const kept: JsonValue | undefined =
      typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? v : Array.isArray(v) ? strings(v) : undefined;
    if (kept !== undefined && kept !== "") out[key] = kept;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

export function toPropertyDetail(body: unknown, zpid: string): { detail: JsonObject; links: Link[] } {
  const p = obj(body);
  if (p === undefined || (p.zpid === undefined && p.address === undefined)) {
    const said = str(p?.message) ?? str(p?.error);
    throw new ApiError("provider_error", `The Zillow listing API has no property ${zpid}${said === undefined ? "" : `: ${said}`}.`);
  }
  const address = obj(p.address) ?? {};
  const history = (arr(p.priceHistory) ?? []).map(obj).filter((e): e is Obj => e !== undefined).map(historyEntry);
  const url = listingUrl(p.hdpUrl) ?? listingUrl(p.url);
  const facts = defined({
    zpid,
    street: str(address.streetAddress) ?? str(p.streetAddress),
    city: str(address.city) ?? str(p.city),
    state: str(address.state) ?? str(p.state),
    zipcode: str(address.zipcode) ?? str(p.zipcode),
    neighborhood: str(address.neighborhood),
    home_type: str(p.homeType),
    home_status: str(p.homeStatus),
    price: num(p.price),
    currency: str(p.currency),
    beds: num(p.bedrooms),
    baths: num(p.bathrooms),
    sqft: num(p.livingArea),
    lot_area: num(p.lotAreaValue),
    lot_area_unit: str(p.lotAreaUnits),
    year_built: int(p.yearBuilt),
    days_on_zillow: int(p.daysOnZillow),
    monthly_hoa_fee: num(p.monthlyHoaFee),
    property_tax_rate: num(p.propertyTaxRate),
    zestimate: num(p.zestimate),
    rent_zestimate: num(p.rentZestimate),
    broker: str(p.brokerageName),
    latitude: num(p.latitude),
    longitude: num(p.longitude),
    description: str(p.description),
    features: resoFacts(p.resoFacts),
  });
  const detail: JsonObject = {
    facts,
    last_sale: { price: num(p.lastSoldPrice) ?? null, date: dayOf(p.dateSold) ?? null },
    sale_history: history.filter((e) => typeof e.event === "string" && /sold/i.test(e.event)).slice(0, MAX_HISTORY),
    price_history: history.slice(0, MAX_HISTORY),
    ...(url === undefined ? {} : { listing_url: url }),
    source: SOURCE,
  };
  return { detail, links: url === undefined ? [] : [{ label: "Listing on Zillow", url }] };
}
