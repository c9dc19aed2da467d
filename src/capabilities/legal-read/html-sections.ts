/**
 * An HTML document → sections, by the structure it has (parsed with linkedom; pure):
 * - EUR-Lex markup: each innermost `div.eli-subdivision` (an article, a recital, an annex, a
 *   citation) is a section; text outside them (the title block with EUR-Lex's disclaimer, chapter
 *   headings, footnotes) is kept as `SectionBuilder` says;
 * - otherwise headings (`h1`–`h4`, and the article-title paragraphs of older EUR-Lex HTML:
 *   `p.ti-art`, `p.oj-ti-art`, `p.title-article-norm`) start sections;
 * - a document with fewer than two such boundaries (or read with `paragraphsOnly`) is cut between
 *   paragraphs into sections of a few thousand characters.
 * Lines are the text of block elements; each keeps the ids (`id`, or `name` of an anchor) of the
 * elements it sits in, the paragraph anchors of its section. Scripts, styles and page chrome
 * (`nav`, `header`, `footer`, `aside`, `form`) are not text.
 */
import { parseHTML } from "linkedom";
import { chunk, type Line, type Section, SectionBuilder } from "./sections.ts";

const BLOCKS = new Set([
  "ADDRESS", "ARTICLE", "ASIDE", "BLOCKQUOTE", "CAPTION", "CENTER", "DD", "DIV", "DL", "DT", "FIGCAPTION", "FIGURE", "H1", "H2",
  "H3", "H4", "H5", "H6", "HR", "LI", "MAIN", "OL", "P", "PRE", "SECTION", "TABLE", "TD", "TH", "TR", "UL",
]);
const SKIPPED = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "NAV", "HEADER", "FOOTER", "FORM", "BUTTON", "SELECT", "SVG", "IFRAME"]);
const HEADINGS = new Set(["H1", "H2", "H3", "H4"]);
const ARTICLE_TITLES = /(^|\s)(ti-art|oj-ti-art|title-article-norm)(\s|$)/;

interface El {
  nodeType: number;
  nodeValue: string | null;
  tagName?: string;
  childNodes: ArrayLike<El>;
  getAttribute?(name: string): string | null;
  querySelector?(selector: string): El | null;
  querySelectorAll?(selector: string): ArrayLike<El>;
}

type Boundary = "leaf" | "heading" | null;

export interface HtmlSectionOptions {
  /** A CSS selector narrowing the document to the element holding the text (a site's main column). */
  root?: string;
  /** Elements holding the document's own title, first found wins. */
  titleSelectors?: readonly string[];
  /** Split into paragraphs only (an opinion's HTML), not by structure. */
  paragraphsOnly?: boolean;
}

export type HtmlSplit = "eli" | "headings" | "paragraphs";

export interface HtmlSections {
  sections: Section[];
  split: HtmlSplit;
  /** The text of the document's own title element (the first of `titleSelectors` found), else its `<title>`, when it has one. */
  title?: string;
  /** With a `root`: whether the page has it (else the body was read; its reader says whether that is drift). */
  rootFound?: boolean;
}

function tagOf(el: El): string {
  return (el.tagName ?? "").toUpperCase();
}

function classOf(el: El): string {
  return el.getAttribute?.("class") ?? "";
}

/** Walks the tree in document order: block text as lines (with ids), boundaries reported to `on`. */
class Walker {
  private buffer = "";
  private ids: string[] = [];
  readonly lines: Line[] = [];

  constructor(
    private readonly boundaryOf: (el: El) => Boundary,
    private readonly on: { line(text: string, ids: string[]): void; start(anchor?: string): void; end(): void },
  ) {}

  walk(node: El): void {
    for (const child of Array.from(node.childNodes)) {
      if (child.nodeType === 3) {
        this.buffer += child.nodeValue ?? "";
        continue;
      }
      if (child.nodeType !== 1) continue;
      const tag = tagOf(child);
      if (SKIPPED.has(tag)) continue;
      if (tag === "BR") {
        this.flush();
        continue;
      }
      const boundary = this.boundaryOf(child);
      // EUR-Lex marks the text of a numbered paragraph `div.inline-element`: it runs on after its number.
      const block = boundary !== null || (BLOCKS.has(tag) && !/(^|\s)inline-element(\s|$)/.test(classOf(child)));
      if (block) this.flush();
      const id = child.getAttribute?.("id") ?? (tag === "A" ? child.getAttribute?.("name") : null);
      if (boundary !== null) this.on.start(id ?? undefined);
      if (id) this.ids.push(id);
      this.walk(child);
      if (block) this.flush();
      if (boundary === "leaf") this.on.end();
    }
  }

  flush(): void {
    const text = this.buffer.replace(/[\s\u00a0]+/g, " ").trim();
    this.buffer = "";
    if (text === "") return;
    const line = { text, ids: this.ids };
    this.ids = [];
    this.lines.push(line);
    this.on.line(line.text, line.ids);
  }
}

function isEliLeaf(el: El): boolean {
  return tagOf(el) === "DIV" && /(^|\s)eli-subdivision(\s|$)/.test(classOf(el)) && el.querySelector?.("div.eli-subdivision") === null;
}

function isHeading(el: El): boolean {
  const tag = tagOf(el);
  return HEADINGS.has(tag) || (tag === "P" && ARTICLE_TITLES.test(classOf(el)));
}

/**
 * The sections of an HTML document. `root` (a CSS selector) narrows it to the element holding the
 * text, when the page has one (a site's main column); the body otherwise.
 */
export function htmlSections(html: string, title: string, options: HtmlSectionOptions = {}): HtmlSections {
  // A fragment (an opinion's HTML) is given a body to live in.
  const { document } = parseHTML(/<body[\s>]/i.test(html) ? html : `<!doctype html><html><head></head><body>${html}</body></html>`);
  const doc = document as unknown as El & { title?: string; body?: El | null };
  const rootEl = options.root ? (doc.querySelector?.(options.root) ?? null) : null;
  const root = rootEl ?? doc.body ?? doc;
  const own = (options.titleSelectors ?? [])
    .map((selector) => doc.querySelector?.(selector) as { textContent?: string | null } | null | undefined)
    .find((el) => el?.textContent?.trim());
  const pageTitle = (own?.textContent ?? doc.title)?.replace(/\s+/g, " ").trim() || undefined;
  const withTitle = (r: Omit<HtmlSections, "title" | "rootFound">): HtmlSections => ({
    ...r,
    ...(pageTitle === undefined ? {} : { title: pageTitle }),
    ...(options.root === undefined ? {} : { rootFound: rootEl !== null }),
  });

  const eli = !options.paragraphsOnly && (root.querySelectorAll?.("div.eli-subdivision").length ?? 0) > 0;
  const headings = eli || options.paragraphsOnly ? 0 : Array.from(root.querySelectorAll?.("h1, h2, h3, h4, p") ?? []).filter(isHeading).length;
  if (eli || headings >= 2) {
    const builder = new SectionBuilder();
    const boundaryOf = eli ? (el: El): Boundary => (isEliLeaf(el) ? "leaf" : null) : (el: El): Boundary => (isHeading(el) ? "heading" : null);
    const walker = new Walker(boundaryOf, builder);
    walker.walk(root);
    walker.flush();
    return withTitle({ sections: builder.finish(), split: eli ? "eli" : "headings" });
  }
  const walker = new Walker(() => null, { line() {}, start() {}, end() {} });
  walker.walk(root);
  walker.flush();
  return withTitle({ sections: chunk(walker.lines, title), split: "paragraphs" });
}
