/**
 * MCP tool results that fit the host. Hosts refuse or truncate large tool results (Claude Code stops
 * at 25,000 tokens), so every MCP tool result is bounded by MCP_MAX_RESULT_CHARS (80,000 characters
 * of JSON by default, about 20,000 tokens). A result over it has its longest text fields cut, longest
 * first: every text field longer than a common length L is cut to L at a word boundary, with L the
 * longest that makes the result fit. Each cut field ends with a mark saying how much of it is shown,
 * and the result's notes (an execute or `more` answer's `notes`, a record action's `detail.notes`, else
 * a top-level `notes`) say which fields were cut and how to get the rest. The same call over REST is
 * never cut. Structured content and the text block are made from the same cut value.
 */

/** Text fields shorter than this are never cut: ids, URLs, titles and short snippets stay whole. */
const MIN_CUT = 400;

/** Keys whose values are never cut, whatever their length (they are followed, not read). */
const KEEP = new Set(["record_id", "search_id", "url", "next", "example", "capability", "action"]);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface TextField {
  holder: Json[] | { [key: string]: Json };
  key: string | number;
  path: string;
  text: string;
}

/** String leaves at least MIN_CUT long under `value`, with their display paths (`results[2].content`). */
function textFields(value: Json, path: string, out: TextField[]): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      if (typeof v === "string") {
        if (v.length >= MIN_CUT) out.push({ holder: value, key: i, path: `${path}[${i}]`, text: v });
      } else textFields(v, `${path}[${i}]`, out);
    });
    return;
  }
  if (value === null || typeof value !== "object") return;
  for (const [k, v] of Object.entries(value)) {
    if (KEEP.has(k)) continue;
    const at = path === "" ? k : `${path}.${k}`;
    if (typeof v === "string") {
      if (v.length >= MIN_CUT) out.push({ holder: value, key: k, path: at, text: v });
    } else textFields(v, at, out);
  }
}

const fmt = (n: number) => n.toLocaleString("en-US");

/** `text` cut to at most `keep` characters at a word boundary, with the mark. */
export function cutText(text: string, keep: number): string {
  let end = keep;
  const space = text.lastIndexOf(" ", keep);
  if (space > keep * 0.8) end = space;
  // Never end inside a surrogate pair.
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end).trimEnd()} … [cut by Quarry: the first ${fmt(end)} of ${fmt(text.length)} characters]`;
}

/** Where the note goes: an execute/more answer's notes, a record action's detail notes, else top-level notes. */
function notesOf(root: { [key: string]: Json }): Json[] {
  const detail = root.detail;
  const holder = Array.isArray(root.results) || detail === null || typeof detail !== "object" || Array.isArray(detail) ? root : detail;
  if (!Array.isArray(holder.notes)) holder.notes = [];
  return holder.notes as Json[];
}

function howToGetTheRest(root: { [key: string]: Json }): string {
  if ("detail" in root) return "the same record action over REST (POST /v1/follow-up), which is never cut";
  return "follow_up `details` on a record for its full stored detail, a smaller `num` or a read's `max_chars`, or the same call over REST (POST /v1/capabilities/{id}/execute), which is never cut";
}

/** The chars the value takes as the text block (its JSON). */
const sizeOf = (value: unknown) => JSON.stringify(value).length;

/**
 * `value` if its JSON is at most `maxChars`, else a copy with its longest text fields cut to fit
 * and a note saying so. If cutting every long field to MIN_CUT is not enough, that is what is
 * returned (cut as far as text goes; never structure dropped).
 */
export function fitResult<T>(value: T, maxChars: number, size = sizeOf(value)): T {
  if (size <= maxChars || value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const copy = JSON.parse(JSON.stringify(value)) as { [key: string]: Json };
  const fields: TextField[] = [];
  textFields(copy, "", fields);
  if (fields.length === 0) return value;
  const note = (cut: TextField[]) =>
    `This MCP result was cut to fit this deployment's limit of ${fmt(maxChars)} characters (MCP_MAX_RESULT_CHARS): ` +
    `${cut.map((f) => `${f.path} (${fmt(f.text.length)} characters)`).join(", ")} ${cut.length === 1 ? "ends" : "end"} with a "[cut by Quarry …]" mark. ` +
    `For the rest: ${howToGetTheRest(copy)}.`;
  const apply = (cap: number): TextField[] => {
    const cut = fields.filter((f) => f.text.length > cap);
    for (const f of fields) (f.holder as Record<string | number, Json>)[f.key as never] = f.text.length > cap ? cutText(f.text, cap) : f.text;
    return cut;
  };
  // The longest common length L that fits, by bisection over [MIN_CUT, longest field].
  let lo = MIN_CUT;
  let hi = Math.max(...fields.map((f) => f.text.length)) - 1;
  let best = lo;
  while (lo <= hi) {
    const mid = Math.floor((lo + hi) / 2);
    const cut = apply(mid);
    // The note goes into a notes array (perhaps a new one): its escaped length and the key's.
    const fits = sizeOf(copy) + JSON.stringify(note(cut)).length + 16 <= maxChars;
    if (fits) {
      best = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  const cut = apply(best);
  notesOf(copy).push(note(cut));
  return copy as T;
}
