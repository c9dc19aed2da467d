/**
 * Page bytes → readable content, no I/O: HTML through Mozilla Readability on a linkedom DOM, then
 * turndown for Markdown or a block-aware text walk for text; PDF through unpdf (pdf.js). These run
 * in the reader's worker threads (pool.ts), never on the event loop; the bench's `read` scenario
 * calls `extractHtml` directly.
 */
import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import TurndownService from "turndown";

export type ReadFormat = "markdown" | "text";

export interface Extracted {
  /** The page's title, when it has one. */
  title?: string;
  /** Markdown or text of the main content. */
  content: string;
  /** Readability found no article: the whole body was converted instead. */
  wholePage?: boolean;
  /** PDF: its page count. */
  pages?: number;
}

/**
 * The most HTML characters handed to the parser (2 MiB of text). A page beyond it is cut there
 * before parsing (HTML parsers close what is left open); the heaviest page of the bench corpus is
 * about 0.4 MB. It bounds a worker's time and memory on one page.
 */
export const MAX_EXTRACT_CHARS = 2 * 1024 * 1024;

let turndown: TurndownService | undefined;

function markdownService(): TurndownService {
  if (turndown === undefined) {
    turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-", emDelimiter: "*" });
    turndown.remove(["script", "style", "noscript", "template", "iframe", "form", "button", "select", "input", "textarea"] as never);
  }
  return turndown;
}

/** Elements that start a new block of text. */
const BLOCKS = new Set([
  "ADDRESS", "ARTICLE", "ASIDE", "BLOCKQUOTE", "DD", "DIV", "DL", "DT", "FIGCAPTION", "FIGURE", "FOOTER", "H1", "H2", "H3",
  "H4", "H5", "H6", "HEADER", "HR", "LI", "MAIN", "NAV", "OL", "P", "PRE", "SECTION", "TABLE", "TR", "UL",
]);
const SKIPPED = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE"]);

interface DomNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
}

/** Text of an element with blocks on their own paragraphs and whitespace collapsed (a small `innerText`). */
export function blockText(root: DomNode): string {
  const out: string[] = [];
  let line = "";
  const flush = () => {
    const t = line.replace(/[ \t\f\r\n\u00a0]+/g, " ").trim();
    if (t !== "") out.push(t);
    line = "";
  };
  const walk = (node: DomNode) => {
    if (node.nodeType === 3) {
      line += node.textContent ?? "";
      return;
    }
    if (node.nodeType !== 1 || SKIPPED.has(node.nodeName)) return;
    if (node.nodeName === "BR") {
      flush();
      return;
    }
    const block = BLOCKS.has(node.nodeName);
    if (block) flush();
    const kids = node.childNodes;
    for (let i = 0; i < kids.length; i++) walk(kids[i]!);
    if (block) flush();
  };
  walk(root);
  flush();
  return out.join("\n\n");
}

function tidyMarkdown(md: string): string {
  return md.replace(/\n{3,}/g, "\n\n").trim();
}

/** Scripts (JSON-LD kept: Readability reads its metadata) and style sheets, whole elements. */
const INERT = /<script\b([^>]*)>[\s\S]*?<\/script\s*>|<style\b[^>]*>[\s\S]*?<\/style\s*>/gi;

/**
 * The page without what Readability removes before it reads anything (scripts but JSON-LD, style
 * sheets): the same article, with less to parse and walk. Often a third of a page's bytes.
 */
export function stripInert(html: string): string {
  return html.replace(INERT, (element, scriptAttributes: string | undefined) =>
    scriptAttributes !== undefined && /application\/ld\+json/i.test(scriptAttributes) ? element : "",
  );
}

/** HTML (already decoded) → the main content, as Markdown or text; `url` resolves relative links. */
export function extractHtml(html: string, url: string, format: ReadFormat): Extracted {
  const source = stripInert(html.length > MAX_EXTRACT_CHARS ? html.slice(0, MAX_EXTRACT_CHARS) : html);
  const { document } = parseHTML(source);
  // Readability makes links absolute against the document's address, which linkedom leaves unset.
  Object.defineProperty(document, "documentURI", { value: url, configurable: true });
  Object.defineProperty(document, "baseURI", { value: baseOf(document, url), configurable: true });
  const pageTitle = clean(document.querySelector("title")?.textContent);
  const article = new Readability(document as never, { serializer: (el: unknown) => el as never }).parse();
  const root = (article?.content as unknown as DomNode | null | undefined) ?? (document.body as unknown as DomNode | null);
  const title = clean(article?.title) ?? pageTitle;
  const wholePage = article === null || article === undefined;
  if (root === null || root === undefined) return { ...(title === undefined ? {} : { title }), content: "", wholePage: true };
  const content = format === "markdown" ? tidyMarkdown(markdownService().turndown(root as never)) : blockText(root);
  return { ...(title === undefined ? {} : { title }), content, ...(wholePage ? { wholePage } : {}) };
}

/** The page's `<base href>` against its URL, else its URL. */
function baseOf(document: { querySelector(s: string): { getAttribute(n: string): string | null } | null }, url: string): string {
  const href = document.querySelector("base[href]")?.getAttribute("href");
  if (!href) return url;
  try {
    return new URL(href, url).href;
  } catch {
    return url;
  }
}

function clean(text: string | null | undefined): string | undefined {
  const t = text?.replace(/\s+/g, " ").trim();
  return t === undefined || t === "" ? undefined : t;
}

/** PDF bytes → text of every page (pages separated by a blank line). */
export async function extractPdf(bytes: Uint8Array): Promise<Extracted> {
  const { extractText, getDocumentProxy } = await import("unpdf");
  const pdf = await getDocumentProxy(bytes);
  try {
    const info = (await pdf.getMetadata().catch(() => null)) as { info?: { Title?: unknown } } | null;
    const { totalPages, text } = await extractText(pdf, { mergePages: false });
    const content = text
      .map((page) => page.replace(/[ \t]+\n/g, "\n").trim())
      .filter((page) => page !== "")
      .join("\n\n");
    const title = typeof info?.info?.Title === "string" ? clean(info.info.Title) : undefined;
    return { ...(title === undefined ? {} : { title }), content, pages: totalPages };
  } finally {
    await pdf.destroy();
  }
}
