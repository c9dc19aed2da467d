/**
 * legal.read `us_reports`: a decision in the United States Reports as the Library of Congress
 * publishes it (volumes 1-542): the item (`GET /item/usrep######/?fo=json` on www.loc.gov), then its
 * text — the item's full-text file when it lists one (`fulltext_file`, `fulltext_derivative`, or a
 * `text/plain` file), else its PDF (`pdf`, or an `application/pdf` file) with one section per PDF
 * page (`pdf_page`), read with unpdf. Files are fetched from tile.loc.gov (`LOC_TILE_BASE_URL`) by
 * their path only; a file named on any other host is not fetched. `printed_page` is given only where
 * the page's own first or last line carries the page number the item id implies (usrep347483:
 * volume 347, first page 483, so PDF page n → page 483 + n − 1): never guessed. An item the Library
 * does not have (404) is the caller's `item_id` (400 at `/document/item_id`).
 *
 * www.loc.gov sits behind a Cloudflare challenge that answers programmatic clients, JSON API
 * included (LibraryOfCongress/data-exploration#88). When the item request is challenged, the PDF is
 * read from tile.loc.gov at the address the collection gives every item id
 * (`/storage-services/service/ll/usrep/usrep{volume}/usrep{volume}{page}/usrep{volume}{page}.pdf`),
 * with a note saying so; the item's title is then not known. The item's `language` is a list of
 * codes as the API gives it (`["eng"]`); English is `EN`, anything else is not stated (null).
 */
import { type Static, Type } from "@sinclair/typebox";
import { ApiError, invalidRequest } from "../../errors.ts";
import { faultOf } from "../../upstream/faults.ts";
import type { ProviderProbe } from "../../upstream/probe.ts";
import { nullish } from "../../upstream/response-check.ts";
import type { JsonRequest, RequestBase } from "../../upstream/types.ts";
import { identifierOf } from "../shared/legal.ts";
import { obj, str } from "../shared/read.ts";
import type { CapabilityContext } from "../types.ts";
import { documentRequest, fetchDocument } from "./fetch.ts";
import { type ReadDocument, sha256Hex } from "./sections.ts";
import { splitPdf, splitText } from "./split-pool.ts";

export const US_REPORTS_ITEM = /^usrep[0-9]{6}$/;

const locFile = Type.Object({ mimetype: nullish(Type.String()), url: nullish(Type.String()) });

/**
 * The parts of the item answer the mapper reads: the item's title (required: every item has one)
 * and language codes, and its resources' text and PDF files. `files` is a list of file groups on
 * an item (a number in search results).
 */
export const locItem = Type.Object({
  item: Type.Object({
    title: Type.String(),
    language: nullish(Type.Array(Type.String())),
  }),
  resources: nullish(
    Type.Array(
      Type.Object({
        pdf: nullish(Type.String()),
        fulltext_file: nullish(Type.String()),
        fulltext_derivative: nullish(Type.String()),
        files: nullish(Type.Union([Type.Array(Type.Union([Type.Array(locFile), locFile])), Type.Number()])),
      }),
    ),
  ),
});
export type LocItemBody = Static<typeof locItem>;

export function itemRequest(itemId: string): JsonRequest<typeof locItem> {
  return { provider: "loc", method: "GET", path: `/item/${itemId}/`, query: { fo: "json" }, acceptStatus: [404], response: locItem };
}

/** The live check: Brown v. Board of Education's item (the capability's example), read with the adapter's schema. */
export const locProbe: ProviderProbe = { provider: "loc", what: "one United States Reports item (Brown v. Board of Education)", request: itemRequest("usrep347483") };

/** The collection's address of an item's PDF on tile.loc.gov (usrep347483 → …/usrep347/usrep347483/usrep347483.pdf). */
export function collectionPdfUrl(itemId: string): string {
  const volume = itemId.slice(5, 8);
  return `https://tile.loc.gov/storage-services/service/ll/usrep/usrep${volume}/${itemId}/${itemId}.pdf`;
}

/** A file URL the item names → a request to the Library's host serving it; undefined for any other host. */
export function fileRequest(url: string): RequestBase | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const host = parsed.hostname === "tile.loc.gov" ? "tile" : parsed.hostname === "www.loc.gov" ? "default" : undefined;
  if (host === undefined || parsed.protocol !== "https:") return undefined;
  const query = Object.fromEntries(parsed.searchParams);
  return {
    provider: "loc",
    ...(host === "tile" ? { host } : {}),
    method: "GET",
    path: parsed.pathname,
    ...(Object.keys(query).length > 0 ? { query } : {}),
  };
}

export interface LocItem {
  title: string;
  language: string | null;
  textUrl?: string;
  pdfUrl?: string;
}

/** English as the item's language codes give it (`eng`, as the API sends; older records `english`). */
const ENGLISH = new Set(["eng", "en", "english"]);

/** The item → its title, language and text/PDF file URLs. */
export function parseItem(body: LocItemBody): LocItem {
  const resources = body.resources ?? [];
  const files = resources.flatMap((r) => (typeof r.files === "number" || r.files == null ? [] : r.files.flatMap((group) => (Array.isArray(group) ? group : [group]))));
  const fileOf = (mime: string) => files.find((f) => str(f.mimetype) === mime && str(f.url) !== undefined)?.url ?? undefined;
  const textUrl = resources.map((r) => str(r.fulltext_file) ?? str(r.fulltext_derivative)).find((u) => u !== undefined) ?? fileOf("text/plain");
  const pdfUrl = resources.map((r) => str(r.pdf)).find((u) => u !== undefined) ?? fileOf("application/pdf");
  const languages = (body.item.language ?? []).map((l) => l.trim().toLowerCase());
  return {
    title: str(body.item.title) ?? "",
    language: languages.length === 1 && ENGLISH.has(languages[0]!) ? "EN" : null,
    ...(textUrl === undefined ? {} : { textUrl }),
    ...(pdfUrl === undefined ? {} : { pdfUrl }),
  };
}

/** A full-text file as text: plain text, or the JSON of LoC's text service (`{segment: {full_text}}`); undefined otherwise. */
export function fullText(text: string): string | undefined {
  const t = text.trimStart();
  if (t.startsWith("<")) return undefined;
  if (!t.startsWith("{")) return t.trim() === "" ? undefined : text;
  try {
    const parts = Object.values(obj(JSON.parse(t)) ?? {})
      .map((v) => str(obj(v)?.full_text))
      .filter((v): v is string => v !== undefined);
    return parts.length > 0 ? parts.join("\n\n") : undefined;
  } catch {
    return undefined;
  }
}

/** The item, or undefined when www.loc.gov answered with a bot challenge (the PDF is then read by its collection address). */
async function itemOrChallenged(ctx: CapabilityContext<unknown>, itemId: string) {
  try {
    return await ctx.upstream.send(itemRequest(itemId), ctx.signal);
  } catch (error) {
    if (faultOf(error) === "challenged") return undefined;
    throw error;
  }
}

export async function readUsReports(ctx: CapabilityContext<unknown>, itemId: string): Promise<ReadDocument> {
  const sourceUrl = `https://www.loc.gov/item/${itemId}/`;
  const base = { identifier: identifierOf.usReports(itemId), source: "us_reports" as const, sourceClass: "reproduction" as const, sourceUrl };
  const itemRes = await itemOrChallenged(ctx, itemId);
  if (itemRes === undefined) return readCollectionPdf(ctx, itemId, base);
  if (itemRes.status === 404) {
    throw invalidRequest([{ path: "/document/item_id", message: `The Library of Congress has no item ${itemId} (404).` }]);
  }
  const item = parseItem(itemRes.body);
  const title = item.title || itemId;
  const textReq = item.textUrl === undefined ? undefined : fileRequest(item.textUrl);
  if (textReq !== undefined) {
    const fetched = await fetchDocument(ctx, textReq, "text");
    const text = fullText(fetched.text);
    if (text !== undefined) {
      const links = [{ label: "Library of Congress", url: sourceUrl }, { label: "Full text", url: item.textUrl! }];
      return { ...base, title, language: item.language, sha256: sha256Hex(fetched.bytes), extractionMethod: "api_text", sections: await splitText(text, title, ctx.signal), links };
    }
  }
  const pdfReq = item.pdfUrl === undefined ? undefined : fileRequest(item.pdfUrl);
  if (pdfReq === undefined) {
    throw new ApiError("provider_error", `The Library of Congress item ${itemId} lists no text or PDF file on its own hosts.`, {
      hint: "The item has nothing Quarry can read; nothing was charged. Open the item's page.",
    });
  }
  const pdf = await ctx.upstream.send(documentRequest(pdfReq, "pdf"), ctx.signal);
  const links = [{ label: "Library of Congress", url: sourceUrl }, { label: "PDF", url: item.pdfUrl! }];
  return { ...base, title, language: item.language, sha256: sha256Hex(pdf.body), extractionMethod: "pdf_text", sections: await splitPdf(pdf.body, itemId, ctx.signal), links };
}

/** The item API was challenged: the PDF at the collection's address for the id, said in a note. */
async function readCollectionPdf(
  ctx: CapabilityContext<unknown>,
  itemId: string,
  base: Pick<ReadDocument, "identifier" | "source" | "sourceClass" | "sourceUrl">,
): Promise<ReadDocument> {
  const url = collectionPdfUrl(itemId);
  const pdf = await ctx.upstream.send({ ...documentRequest(fileRequest(url)!, "pdf"), acceptStatus: [404] }, ctx.signal);
  if (pdf.status === 404) {
    throw new ApiError("provider_error", `The Library of Congress's item API answered with a bot challenge, and its file host has no PDF at the collection's address for ${itemId}.`, {
      retryable: false,
      hint: "The item could not be looked up, so Quarry cannot say whether it exists; nothing was charged. Retry later, or open the item's page.",
    });
  }
  const volume = Number(itemId.slice(5, 8));
  const page = Number(itemId.slice(8));
  const title = `United States Reports, volume ${volume}, page ${page} (${itemId})`;
  return {
    ...base,
    title,
    // The collection is the Supreme Court's reports in English; without the item the Library does not say so here.
    language: null,
    sha256: sha256Hex(pdf.body),
    extractionMethod: "pdf_text",
    sections: await splitPdf(pdf.body, itemId, ctx.signal),
    links: [{ label: "Library of Congress", url: base.sourceUrl }, { label: "PDF", url }],
    notes: [`The Library of Congress's item API answered with a bot challenge; the PDF was read from its file host at the collection's address for ${itemId} (${url}), so the item's title is not given.`],
  };
}
