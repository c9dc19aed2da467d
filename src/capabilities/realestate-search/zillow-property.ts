/**
 * realestate.search `details`: one property from the Zillow listing API's `GET /property?zpid=`,
 * mapped to its facts, its reported sale history and the listing link. The last sale is what the
 * API reports as such (`lastSoldPrice`, `dateSold`): when it reports none, both stay unknown
 * (null), never filled from the price history or an estimate. Pure mappers; no I/O.
 */
import { type Static, Type } from "@sinclair/typebox";
import { nullish } from "../../upstream/response-check.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import { arr, defined, int, num, type Obj, obj, str, strings } from "../shared/read.ts";
import type { JsonObject, JsonValue, Link } from "../types.ts";
import { dayOf, listingUrl, SOURCE, zillowRefusal, zpidValue } from "./zillow-search.ts";

const MAX_HISTORY = 30;

const text = nullish(Type.String());
const number = nullish(Type.Number());

/**
 * A `GET /property` answer as the detail reads it: the property's zpid (required: an answer without
 * one is not this property), its facts (null when the API has none), price history and listing
 * facts (`resoFacts`, kept as listed).
 */
export const propertyAnswer = Type.Object({
  zpid: zpidValue,
  address: nullish(
    Type.Object({ streetAddress: text, city: text, state: text, zipcode: text, neighborhood: text }),
  ),
  streetAddress: text,
  city: text,
  state: text,
  zipcode: text,
  homeType: text,
  homeStatus: text,
  price: number,
  currency: text,
  bedrooms: number,
  bathrooms: number,
  livingArea: number,
  lotAreaValue: number,
  lotAreaUnits: text,
  yearBuilt: number,
  daysOnZillow: number,
  monthlyHoaFee: number,
  propertyTaxRate: number,
  zestimate: number,
  rentZestimate: number,
  brokerageName: text,
  latitude: number,
  longitude: number,
  description: text,
  hdpUrl: text,
  url: text,
  lastSoldPrice: number,
  dateSold: number,
  priceHistory: nullish(
    Type.Array(
      Type.Object({ date: text, time: number, event: text, price: number, pricePerSquareFoot: number, source: text }),
    ),
  ),
  resoFacts: nullish(Type.Record(Type.String(), Type.Unknown())),
});
export type PropertyAnswer = Static<typeof propertyAnswer>;

export function propertyRequest(zpid: string): JsonRequest<typeof propertyAnswer> {
  return { provider: "realestate", method: "GET", path: "/property", query: { zpid }, response: propertyAnswer, refusal: zillowRefusal };
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

export function toPropertyDetail(body: PropertyAnswer, zpid: string): { detail: JsonObject; links: Link[] } {
  const p: Obj = body;
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
