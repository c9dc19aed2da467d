/**
 * Plain text from provider strings that carry HTML escapes or inline markup: YouTube search titles
 * (`&amp;`, `&#39;`, `&quot;`) and caption lines (`<i>…</i>` after XML decoding). Total functions,
 * no I/O; they never add text, only decode or drop markup.
 */

const NAMED: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
};

/** Decode numeric (`&#39;`, `&#x27;`) and the common named HTML entities; unknown ones stay as written. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[name.toLowerCase()] ?? whole;
  });
}

/** Text of an HTML fragment: entities decoded, tags dropped, whitespace collapsed. */
export function htmlToText(fragment: string): string {
  return decodeEntities(fragment.replace(/<[^>]*>/g, ""))
    .replace(/\s+/g, " ")
    .trim();
}
