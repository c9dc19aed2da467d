/** Cutting content to the caller's `max_chars`, counted in Unicode code points. */

/** The first `max` code points of `text`, and how many it has. */
export function cutChars(text: string, max: number): { content: string; chars: number; truncated: boolean } {
  // Code points, not UTF-16 units, so a cut never splits a character.
  let chars = 0;
  let end = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) i++;
    chars++;
    if (chars === max) end = i + 1;
  }
  return chars > max ? { content: text.slice(0, end), chars, truncated: true } : { content: text, chars, truncated: false };
}
