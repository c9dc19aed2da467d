/**
 * Serper `POST /search` answers (checked against `serperSearchAnswer`) → web.search records: the
 * answer box and the knowledge graph (each with its provider-shaped extra keys) then the organic
 * results, in Google's rank. Pure.
 */
import type { JsonObject, JsonValue, RecordDraft, SourcePage } from "../types.ts";
import { defined, httpUrl, int, type Obj, obj, str } from "../shared/read.ts";
import { nextSerperPage, type SerperSearchAnswer } from "../shared/serper.ts";

/** A JSON value as the provider sent it, when it is one (strings trimmed, empty ones dropped). */
function json(value: unknown): JsonValue | undefined {
  if (typeof value === "string") return str(value);
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value === "boolean" || value === null) return value ?? undefined;
  if (Array.isArray(value) || typeof value === "object") return JSON.parse(JSON.stringify(value)) as JsonValue;
  return undefined;
}

/** The provider's own keys, except those mapped to record keys. */
function extras(source: Obj, mapped: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(source)) {
    if (mapped.includes(key)) continue;
    const v = json(value);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/** A flat object of strings (knowledge-graph attributes), else undefined. */
function attributes(value: unknown): JsonObject | undefined {
  const o = obj(value);
  if (o === undefined) return undefined;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(o)) {
    const s = str(v);
    if (s !== undefined) out[k] = s;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function withUrl(summary: RecordDraft["summary"]): RecordDraft {
  return typeof summary.url === "string" ? { summary, ref: { url: summary.url } } : { summary };
}

/** `answerBox` → an `answer_box` record (its link, when it has one, is the page `read` reads). */
export function answerBoxRecord(box: Obj): RecordDraft | null {
  const answer = str(box.answer);
  const snippet = str(box.snippet) ?? answer;
  const title = str(box.title) ?? answer ?? snippet;
  if (title === undefined) return null;
  const mapped = ["title", "link", "date", "snippet", "kind", "type", "attributes", "position", "url"];
  return withUrl({
    title,
    ...defined({ url: httpUrl(box.link), snippet, date: str(box.date) }),
    kind: "answer_box",
    ...extras(box, mapped),
  });
}

/** `knowledgeGraph` → a `knowledge_graph` record; its URL is the entity's website, else its description's source. */
export function knowledgeGraphRecord(kg: Obj): RecordDraft | null {
  const title = str(kg.title);
  if (title === undefined) return null;
  const mapped = ["title", "type", "attributes", "description", "kind", "position", "date", "url", "snippet"];
  return withUrl({
    title,
    ...defined({ url: httpUrl(kg.website) ?? httpUrl(kg.descriptionLink), snippet: str(kg.description) }),
    kind: "knowledge_graph",
    ...defined({ type: str(kg.type), attributes: attributes(kg.attributes) }),
    ...extras(kg, mapped),
  });
}

/** One `organic` item → an `organic` record. */
export function organicRecord(item: Obj): RecordDraft | null {
  const title = str(item.title);
  const url = httpUrl(item.link);
  if (title === undefined || url === undefined) return null;
  return withUrl({ title, url, ...defined({ snippet: str(item.snippet), position: int(item.position), date: str(item.date) }), kind: "organic" });
}

/**
 * One answer → one page: on the first page the answer box and knowledge graph, then at most `num`
 * organic results (`num` counts organic results, as Serper's does). A later page's answer box or
 * knowledge graph, should Serper send one, would repeat the first page's: it is not a record.
 */
export function toSearchPage(body: SerperSearchAnswer, page: number, num: number): SourcePage {
  const records: RecordDraft[] = [];
  if (page === 1) {
    const boxRecord = body.answerBox === undefined ? null : answerBoxRecord(body.answerBox);
    if (boxRecord !== null) records.push(boxRecord);
    const kgRecord = body.knowledgeGraph === undefined ? null : knowledgeGraphRecord(body.knowledgeGraph);
    if (kgRecord !== null) records.push(kgRecord);
  }
  const organic = body.organic;
  const organicRecords = organic.map(organicRecord).filter((r): r is RecordDraft => r !== null).slice(0, num);
  records.push(...organicRecords);
  return { records, next: nextSerperPage(page, num, organic.length) };
}
