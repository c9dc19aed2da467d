/**
 * HTML fragments from provider bodies (wger exercise descriptions, MediaWiki snippets, caption lines)
 * as plain text: parsed with linkedom (entities decoded, tags dropped, scripts and styles left
 * out), one line per block element or `<br>`, list items marked with "- ", whitespace collapsed
 * inside each line and blank lines dropped. Pure; no I/O.
 */
import { parseHTML } from "linkedom";

const BLOCKS = new Set([
  "ADDRESS", "ARTICLE", "ASIDE", "BLOCKQUOTE", "DD", "DIV", "DL", "DT", "FIGCAPTION", "FIGURE", "FOOTER",
  "H1", "H2", "H3", "H4", "H5", "H6", "HEADER", "HR", "LI", "OL", "P", "PRE", "SECTION", "TABLE", "TD", "TH", "TR", "UL",
]);
const SKIPPED = new Set(["SCRIPT", "STYLE", "TEMPLATE", "NOSCRIPT"]);

interface DomNode {
  nodeType: number;
  nodeValue: string | null;
  tagName?: string;
  childNodes: ArrayLike<DomNode>;
}

function walk(node: DomNode, out: string[]): void {
  for (const child of Array.from(node.childNodes)) {
    if (child.nodeType === 3) {
      out.push(child.nodeValue ?? "");
      continue;
    }
    if (child.nodeType !== 1) continue;
    const tag = (child.tagName ?? "").toUpperCase();
    if (SKIPPED.has(tag)) continue;
    if (tag === "BR") {
      out.push("\n");
      continue;
    }
    const block = BLOCKS.has(tag);
    if (block) out.push("\n");
    if (tag === "LI") out.push("- ");
    walk(child, out);
    if (block) out.push("\n");
  }
}

/** The text of an HTML fragment: one line per block, whitespace collapsed, no blank lines. */
export function htmlToText(html: string): string {
  if (!/[<&]/.test(html)) return tidyLines(html);
  const { document } = parseHTML(`<!doctype html><html><head></head><body><div id="quarry-root">${html}</div></body></html>`);
  const root = document.getElementById("quarry-root") as unknown as DomNode | null;
  if (root === null) return tidyLines(html);
  const out: string[] = [];
  walk(root, out);
  return tidyLines(out.join(""));
}

function tidyLines(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => line.replace(/[\s\u00a0]+/g, " ").trim())
    .filter((line) => line !== "" && line !== "-")
    .join("\n");
}

/** An HTML fragment as one line of text (caption lines, titles): `htmlToText` with its lines joined. */
export function inlineText(fragment: string): string {
  return htmlToText(fragment).replace(/\n/g, " ");
}

const NAMED: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

/**
 * Numeric (`&#39;`, `&#x27;`) and the common named HTML entities decoded, unknown ones left as
 * written: for provider strings that carry escapes but no markup (YouTube search titles), where a
 * DOM parse per string would cost more than it could find.
 */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[name.toLowerCase()] ?? whole;
  });
}
