/**
 * legal.read's one job after fetching: a document's verbatim text as numbered sections, and those
 * sections as records with their stored details (spec 4.6). Pure; no I/O.
 *
 * A section is a run of the source's own lines, never rewritten: whitespace inside a line is
 * collapsed, nothing else changes. Lines come with the ids (anchors) of the elements they sit in.
 * `SectionBuilder` gathers lines into sections at the boundaries a source's structure gives
 * (articles, headings, pages); text between sections is kept too (see `start`). A section longer
 * than MAX_SECTION_CHARS is cut into parts at line boundaries, so every detail stays readable.
 */
import { createHash } from "node:crypto";
import { ApiError } from "../../errors.ts";
import type { LegalSource, SourceClass } from "../shared/legal.ts";
import { clip, defined } from "../shared/read.ts";
import type { RecordDraft, SourcePage } from "../types.ts";

/** The most characters of one section's text; longer ones are cut into parts. */
export const MAX_SECTION_CHARS = 12_000;
/** Text between sections this short (chapter and part headings) opens the next section; longer runs are their own. */
const HEADING_RUN_CHARS = 300;
/** The most anchors a section lists. */
const MAX_ANCHORS = 100;

export interface Line {
  text: string;
  ids: string[];
}

export interface Section {
  /** The section's heading: its own first line(s), as written. */
  title: string;
  text: string;
  anchors: string[];
  /** The id of the element the section is (an article's `art_5`), when it has one: its link's fragment. */
  anchor?: string;
  pdfPage?: number;
  printedPage?: string;
}

/** A fetched document, ready to be paged: what every section's details repeat. */
export interface ReadDocument {
  title: string;
  identifier: string;
  source: LegalSource;
  sourceClass: SourceClass;
  /** The text's language; null where the source does not say. */
  language: string | null;
  sourceUrl: string;
  /** The page people open for the document, when it is not `sourceUrl` (records' `url`, with a section's anchor). */
  pageUrl?: string;
  /** SHA-256 (hex) of the source bytes as fetched. */
  sha256: string;
  extractionMethod: string;
  sections: Section[];
  notes?: string[];
  links?: { label: string; url: string }[];
}

export function sha256Hex(...parts: (string | Uint8Array)[]): string {
  const hash = createHash("sha256");
  for (const p of parts) hash.update(p);
  return hash.digest("hex");
}

/** A line of source text with its whitespace collapsed (empty when it holds nothing visible). */
export function tidy(text: string): string {
  return text.replace(/[\s\u00a0]+/g, " ").trim();
}

/**
 * The heading of a run of lines: a short label line followed by a short title that is not a
 * sentence ("Article 5" + "Traffic data" → "Article 5 — Traffic data"), else the first line.
 */
export function headingOf(lines: readonly Line[]): string {
  const [a, b] = [lines[0]?.text ?? "", lines[1]?.text];
  const label = a.length <= 40 && !/[.,;:)\]]$/.test(a);
  if (label && b !== undefined && b.length <= 100 && !/[.;:!?\]]$/.test(b)) return `${a} — ${b}`;
  return clip(a, 160);
}

interface Draft {
  lines: Line[];
  /** Where the section's own lines start (lines before it are a heading run that opens it). */
  own: number;
  anchor?: string;
}

/** Gathers lines into sections at the boundaries the caller reports. */
export class SectionBuilder {
  readonly sections: Section[] = [];
  private current: Draft | null = null;
  private loose: Line[] = [];

  line(text: string, ids: string[]): void {
    const t = tidy(text);
    if (t === "") return;
    (this.current?.lines ?? this.loose).push({ text: t, ids });
  }

  /**
   * A section begins. Loose text before it (outside any section) that is short — chapter or part
   * headings — opens it; a longer run (a document's title block, a preamble) is a section of its own.
   */
  start(anchor?: string): void {
    this.end();
    const prefix = this.takeLoose(true);
    this.current = { lines: prefix, own: prefix.length, ...(anchor === undefined ? {} : { anchor }) };
  }

  /** The current section ends; text after it is loose until the next one starts. */
  end(): void {
    if (this.current !== null) this.push(this.current);
    this.current = null;
  }

  finish(): Section[] {
    this.end();
    this.takeLoose(false);
    return this.sections;
  }

  private takeLoose(mayOpen: boolean): Line[] {
    const run = this.loose;
    this.loose = [];
    if (run.length === 0) return [];
    const chars = run.reduce((n, l) => n + l.text.length, 0);
    if (mayOpen && run.length <= 3 && chars <= HEADING_RUN_CHARS) return run;
    this.push({ lines: run, own: 0 });
    return [];
  }

  private push(d: Draft): void {
    if (d.lines.length === 0) return;
    const own = d.lines.slice(d.own);
    const extra = d.anchor === undefined ? {} : { anchor: d.anchor };
    this.sections.push(...partsOf(d.lines, headingOf(own.length > 0 ? own : d.lines), extra));
  }
}

/** A run of lines as one section, or as parts of at most MAX_SECTION_CHARS each. */
export function partsOf(lines: readonly Line[], title: string, extra: Partial<Section> = {}): Section[] {
  const groups: Line[][] = [];
  let group: Line[] = [];
  let size = 0;
  for (const line of lines) {
    for (const piece of cutLine(line)) {
      if (group.length > 0 && size + piece.text.length + 1 > MAX_SECTION_CHARS) {
        groups.push(group);
        group = [];
        size = 0;
      }
      group.push(piece);
      size += piece.text.length + 1;
    }
  }
  if (group.length > 0) groups.push(group);
  return groups.map((g, i) => ({
    ...extra,
    title: groups.length === 1 ? title : `${title} (part ${i + 1} of ${groups.length})`,
    text: g.map((l) => l.text).join("\n"),
    anchors: [...new Set(g.flatMap((l) => l.ids))].slice(0, MAX_ANCHORS),
  }));
}

/** A line longer than a section, cut at spaces. */
function cutLine(line: Line): Line[] {
  if (line.text.length <= MAX_SECTION_CHARS) return [line];
  const out: Line[] = [];
  let rest = line.text;
  while (rest.length > MAX_SECTION_CHARS) {
    const space = rest.lastIndexOf(" ", MAX_SECTION_CHARS);
    const at = space > MAX_SECTION_CHARS / 2 ? space : MAX_SECTION_CHARS;
    out.push({ text: rest.slice(0, at).trimEnd(), ids: out.length === 0 ? line.ids : [] });
    rest = rest.slice(at).trimStart();
  }
  if (rest !== "") out.push({ text: rest, ids: [] });
  return out;
}

/**
 * Plain text (paragraphs separated by blank lines) as sections of about `target` characters, cut
 * between paragraphs, titled `title` and numbered when there are several.
 */
export function textSections(text: string, title: string, target = 6_000): Section[] {
  const paragraphs = text
    .replace(/\r\n?/g, "\n")
    .split(/\n\s*\n/)
    .map((p) => p.split("\n").map(tidy).filter((l) => l !== "").join("\n"))
    .filter((p) => p !== "");
  return chunk(paragraphs.map((p) => ({ text: p, ids: [] })), title, target);
}

/** Lines grouped into sections of about `target` characters (a line is never split unless it alone is too long). */
export function chunk(lines: readonly Line[], title: string, target = 6_000): Section[] {
  const groups: Line[][] = [];
  let group: Line[] = [];
  let size = 0;
  for (const line of lines) {
    if (group.length > 0 && size + line.text.length > target) {
      groups.push(group);
      group = [];
      size = 0;
    }
    group.push(line);
    size += line.text.length + 1;
  }
  if (group.length > 0) groups.push(group);
  return groups.flatMap((g, i) => partsOf(g, groups.length === 1 ? title : `${title} (part ${i + 1} of ${groups.length})`));
}

/** A source that answered but gave no text: the failure is said, never replaced by other text. */
export function noText(what: string): ApiError {
  return new ApiError("provider_error", `${what} has no text that could be read.`, {
    hint: "The source gave nothing to read; nothing was charged. Try the document's source link, or another edition.",
  });
}

/**
 * The whole document as local-paging records: one per section, each with its stored details
 * (spec 4.6: free, `legal_status: not_assessed`, `complete_document_available_through_more: true`).
 */
export function documentPage(doc: ReadDocument, retrievedAt: string): SourcePage {
  if (doc.sections.length === 0) throw noText(doc.title);
  const total = doc.sections.length;
  const records: RecordDraft[] = doc.sections.map((s, i) => {
    const page = doc.pageUrl ?? doc.sourceUrl;
    const url = s.anchor === undefined ? page : `${page}#${encodeURIComponent(s.anchor)}`;
    const common = {
      identifier: doc.identifier,
      source_class: doc.sourceClass,
      section: i + 1,
      total_sections: total,
      extraction_method: doc.extractionMethod,
      pdf_page: s.pdfPage,
      printed_page: s.printedPage,
    };
    const summary = defined({
      title: s.title,
      url,
      snippet: clip(s.text.replace(/\n/g, " "), 240),
      ...common,
      language: doc.language ?? undefined,
      paragraph_anchors: s.anchors.length > 0 ? s.anchors : undefined,
    });
    const detail = defined({
      title: doc.title,
      section_title: s.title,
      source: doc.source,
      language: doc.language,
      source_url: doc.sourceUrl,
      retrieved_at: retrievedAt,
      source_sha256: doc.sha256,
      legal_status: "not_assessed",
      text: s.text,
      complete_document_available_through_more: true,
      ...common,
      anchors: s.anchors.length > 0 ? s.anchors : undefined,
    });
    return { summary: summary as RecordDraft["summary"], detail, links: doc.links ?? [{ label: "Source", url: doc.sourceUrl }] };
  });
  return { records, next: null, ...(doc.notes && doc.notes.length > 0 ? { notes: doc.notes } : {}) };
}
