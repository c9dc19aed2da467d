/**
 * Serper `POST /news` answers (checked against `serperNewsAnswer`) → news.search records: the news
 * index's metadata of each article (title, link, snippet, publisher, relative date, image) stored as
 * its detail, never the article itself. Pure.
 */
import type { Static } from "@sinclair/typebox";
import type { RecordDraft, SourcePage } from "../types.ts";
import { defined, httpUrl, int, str } from "../shared/read.ts";
import { nextSerperPage, type SerperNewsAnswer, type serperNewsItem, serperCredits } from "../shared/serper.ts";

/** `source` of every record: the index the metadata comes from. */
export const NEWS_SOURCE = "Google News (via Serper)";
/** `content_scope` of every record: what it holds of the article. */
export const CONTENT_SCOPE = "indexed_metadata";
export const PUBLISHER_PAGE_NOTE =
  "This is the news index's metadata and the original link only; the publisher's page is not included and must be read separately (web.read with the link).";

/** Credits Serper bills a news search when its answer does not say: 1, or 2 above 10 results. */
export function listedNewsCredits(num: number): number {
  return num > 10 ? 2 : 1;
}

function newsRecord(item: Static<typeof serperNewsItem>, fetchedAt: string): RecordDraft | null {
  const title = str(item.title);
  const url = httpUrl(item.link);
  if (title === undefined || url === undefined) return null;
  const own = defined({
    snippet: str(item.snippet),
    publisher: str(item.source),
    published_label: str(item.date),
    image_url: httpUrl(item.imageUrl),
  });
  const summary = { title, url, ...own, source: NEWS_SOURCE, fetched_at: fetchedAt, content_scope: CONTENT_SCOPE };
  const detail = { ...summary, ...defined({ position: int(item.position) }), note: PUBLISHER_PAGE_NOTE };
  return { summary, detail, links: [{ label: "Original article", url }] };
}

/** One answer → one page, with the credits Serper reports (or bills, when it does not report them). */
export function toNewsPage(body: SerperNewsAnswer, page: number, num: number, fetchedAt: string): SourcePage {
  const items = body.news;
  const records = items
    .map((item) => newsRecord(item, fetchedAt))
    .filter((r): r is RecordDraft => r !== null)
    .slice(0, num);
  return { records, next: nextSerperPage(page, num, items.length), units: serperCredits(body) ?? listedNewsCredits(num) };
}
