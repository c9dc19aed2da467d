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
 */
import { ApiError, invalidRequest } from "../../errors.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import { identifierOf } from "../shared/legal.ts";
import { arr, obj, type Obj, str, strings } from "../shared/read.ts";
import type { CapabilityContext } from "../types.ts";
import { fetchDocument } from "./fetch.ts";
import { type ReadDocument, sha256Hex } from "./sections.ts";
import { splitPdf, splitText } from "./split-pool.ts";

export const US_REPORTS_ITEM = /^usrep[0-9]{6}$/;

export function itemRequest(itemId: string): UpstreamRequest {
  return { provider: "loc", method: "GET", path: `/item/${itemId}/`, query: { fo: "json" }, acceptStatus: [404] };
}

/** A file URL the item names → a request to the Library's host serving it; undefined for any other host. */
export function fileRequest(url: string): UpstreamRequest | undefined {
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

/** The item JSON → its title, language and text/PDF file URLs. */
export function parseItem(body: unknown, itemId: string): LocItem {
  const o = obj(body);
  const item = obj(o?.item);
  if (o === undefined || item === undefined) {
    throw new ApiError("provider_error", `The Library of Congress answered item ${itemId} without item metadata.`, {
      hint: "The provider answered in an unexpected shape; nothing was charged. Retry later.",
    });
  }
  const resources = (arr(o.resources) ?? []).map(obj).filter((r): r is Obj => r !== undefined);
  const files = resources.flatMap((r) => (arr(r.files) ?? []).flatMap((group) => arr(group) ?? [group])).map(obj).filter((f): f is Obj => f !== undefined);
  const fileOf = (mime: string) => files.find((f) => str(f.mimetype) === mime && str(f.url) !== undefined)?.url as string | undefined;
  const textUrl = resources.map((r) => str(r.fulltext_file) ?? str(r.fulltext_derivative)).find((u) => u !== undefined) ?? fileOf("text/plain");
  const pdfUrl = resources.map((r) => str(r.pdf)).find((u) => u !== undefined) ?? fileOf("application/pdf");
  const languages = (strings(item.language) ?? []).map((l) => l.toLowerCase());
  return {
    title: str(item.title) ?? itemId,
    language: languages.length === 1 && languages[0] === "english" ? "EN" : null,
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

export async function readUsReports(ctx: CapabilityContext<unknown>, itemId: string): Promise<ReadDocument> {
  const itemRes = await ctx.upstream.send<unknown>(itemRequest(itemId), ctx.signal);
  if (itemRes.status === 404) {
    throw invalidRequest([{ path: "/document/item_id", message: `The Library of Congress has no item ${itemId} (404).` }]);
  }
  const item = parseItem(itemRes.body, itemId);
  const sourceUrl = `https://www.loc.gov/item/${itemId}/`;
  const base = {
    title: item.title,
    identifier: identifierOf.usReports(itemId),
    source: "us_reports" as const,
    sourceClass: "reproduction" as const,
    language: item.language,
    sourceUrl,
  };
  const textReq = item.textUrl === undefined ? undefined : fileRequest(item.textUrl);
  if (textReq !== undefined) {
    const fetched = await fetchDocument(ctx, textReq);
    const text = fullText(fetched.text);
    if (text !== undefined) {
      const links = [{ label: "Library of Congress", url: sourceUrl }, { label: "Full text", url: item.textUrl! }];
      return { ...base, sha256: sha256Hex(fetched.bytes), extractionMethod: "api_text", sections: await splitText(text, item.title, ctx.signal), links };
    }
  }
  const pdfReq = item.pdfUrl === undefined ? undefined : fileRequest(item.pdfUrl);
  if (pdfReq === undefined) {
    throw new ApiError("provider_error", `The Library of Congress item ${itemId} lists no text or PDF file on its own hosts.`, {
      hint: "The item has nothing Quarry can read; nothing was charged. Open the item's page.",
    });
  }
  const pdf = await ctx.upstream.send({ ...pdfReq, responseType: "bytes", response: "pdf" }, ctx.signal);
  const links = [{ label: "Library of Congress", url: sourceUrl }, { label: "PDF", url: item.pdfUrl! }];
  return { ...base, sha256: sha256Hex(pdf.body), extractionMethod: "pdf_text", sections: await splitPdf(pdf.body, itemId, ctx.signal), links };
}
