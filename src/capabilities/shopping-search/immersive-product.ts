/**
 * shopping.search `details`: a product's specifications and merchant offers from SerpApi's
 * `google_immersive_product` engine (Google's product pop-up; the Google Product API it replaced
 * was shut down), asked with the result's `immersive_product_page_token`. A result without one
 * (older layout) has no product page to ask: its detail is the one offer the search returned,
 * with no provider call. Pure mappers; no I/O.
 */
import { type Static, Type } from "@sinclair/typebox";
import type { JsonRequest } from "../../upstream/types.ts";
import { arr, defined, httpUrl, int, num, type Obj, obj, str, strings } from "../shared/read.ts";
import { readSerpApi, serpApiRequest } from "../shared/serpapi.ts";
import type { JsonObject, JsonValue, Link } from "../types.ts";

const MAX_OFFERS = 20;
const MAX_SPECS = 60;

/** A merchant's offer (`stores[]`). */
const store = Type.Object({
  name: Type.Optional(Type.String()),
  title: Type.Optional(Type.String()),
  extracted_price: Type.Optional(Type.Number()),
  price: Type.Optional(Type.String()),
  extracted_original_price: Type.Optional(Type.Number()),
  rating: Type.Optional(Type.Number()),
  reviews: Type.Optional(Type.Number()),
  details_and_offers: Type.Optional(Type.Array(Type.String())),
  link: Type.Optional(Type.String()),
});

/**
 * A google_immersive_product answer: `product_results` (required) with its title, brand, rating,
 * offers, description and specifications (`about_the_product.features[]`, or a `specs` object whose
 * text values are read).
 */
export const immersiveProductAnswer = Type.Object({
  product_results: Type.Object({
    title: Type.String(),
    brand: Type.Optional(Type.String()),
    rating: Type.Optional(Type.Number()),
    reviews: Type.Optional(Type.Number()),
    price_range: Type.Optional(Type.String()),
    extensions: Type.Optional(Type.Array(Type.String())),
    stores: Type.Optional(Type.Array(store)),
    about_the_product: Type.Optional(
      Type.Object({
        description: Type.Optional(Type.String()),
        features: Type.Optional(Type.Array(Type.Object({ title: Type.Optional(Type.String()), value: Type.Optional(Type.String()) }))),
      }),
    ),
    specs: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  }),
});
export type ImmersiveProductAnswer = Static<typeof immersiveProductAnswer>;

export function detailRequest(pageToken: string): JsonRequest<typeof immersiveProductAnswer> {
  return serpApiRequest("google_immersive_product", { page_token: pageToken }, immersiveProductAnswer);
}

/** The product's specifications and merchant offers. */
export function toDetail(body: ImmersiveProductAnswer): { detail: JsonObject; links: Link[] } {
  const { root, noResults } = readSerpApi(body);
  const product = obj(root.product_results);
  if (noResults || product === undefined) {
    return { detail: { offers: [], specifications: [], note: "Google has no product page for this result any more." }, links: [] };
  }
  const about = obj(product.about_the_product);
  const offers = (arr(product.stores) ?? []).map(obj).filter((s): s is Obj => s !== undefined).slice(0, MAX_OFFERS).map(offerOf);
  const detail = defined({
    title: str(product.title),
    brand: str(product.brand),
    rating: num(product.rating),
    reviews: int(product.reviews),
    price_range: str(product.price_range),
    description: str(about?.description),
    highlights: strings(product.extensions),
    specifications: specificationsOf(about?.features, product.specs),
    offers,
  });
  const links = offers.flatMap((o) => (typeof o.link === "string" ? [{ label: String(o.seller ?? "Offer"), url: o.link }] : []));
  return { detail, links };
}

function offerOf(store: Obj): JsonObject {
  return defined({
    seller: str(store.name),
    title: str(store.title),
    price: num(store.extracted_price),
    price_display: str(store.price),
    original_price: num(store.extracted_original_price),
    rating: num(store.rating),
    reviews: int(store.reviews),
    details: strings(store.details_and_offers),
    link: httpUrl(store.link),
  });
}

/** `about_the_product.features[] {title, value}`, and a `specs` object's entries when SerpApi gives one. */
function specificationsOf(features: unknown, specs: unknown): JsonValue[] {
  const out: JsonValue[] = [];
  for (const f of (arr(features) ?? []).map(obj)) {
    const name = str(f?.title);
    const value = str(f?.value);
    if (name !== undefined && value !== undefined) out.push({ name, value });
  }
  for (const [name, value] of Object.entries(obj(specs) ?? {})) {
    const v = str(value);
    if (v !== undefined) out.push({ name, value: v });
  }
  return out.slice(0, MAX_SPECS);
}

/** A result with no product page: its one offer, as the search returned it. */
export function storedOffer(summary: JsonObject): { detail: JsonObject; links: Link[] } {
  const url = typeof summary.url === "string" ? summary.url : undefined;
  const offer = defined({
    seller: summary.seller,
    price: summary.price,
    price_display: summary.price_display,
    delivery: summary.delivery,
    condition: summary.condition,
    link: url,
  });
  return {
    detail: {
      title: summary.title ?? null,
      offers: [offer],
      specifications: [],
      note: "This result has no Google product page (no immersive product token), so no specifications or other offers are known: the one offer is the search result's.",
    },
    links: url === undefined ? [] : [{ label: String(summary.seller ?? "Offer"), url }],
  };
}
