/**
 * Bytes → text by the page's declared charset: a byte-order mark first, then the Content-Type
 * header's `charset`, then (HTML) a `<meta charset>` or `<meta http-equiv="Content-Type">` in the
 * first 1024 bytes, as the HTML standard's prescan reads it; UTF-8 otherwise. Labels are WHATWG
 * Encoding labels (TextDecoder: windows-1252, shift_jis, gb18030, …); an unknown label is UTF-8.
 */

/** The charset a `<meta>` in the page's first 1024 bytes declares, if any. */
export function metaCharset(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.subarray(0, 1024)).toString("latin1");
  const direct = /<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)/i.exec(head);
  return direct?.[1];
}

function bomCharset(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  return undefined;
}

function decoder(label: string | undefined): InstanceType<typeof TextDecoder> | undefined {
  if (label === undefined) return undefined;
  try {
    return new TextDecoder(label.trim().toLowerCase());
  } catch {
    return undefined;
  }
}

/** Decode a page: `declared` is the header's charset; `html` lets a `<meta>` declare it. */
export function decodePage(bytes: Uint8Array, declared: string | undefined, html: boolean): string {
  const chosen = decoder(bomCharset(bytes)) ?? decoder(declared) ?? (html ? decoder(metaCharset(bytes)) : undefined) ?? new TextDecoder("utf-8");
  return chosen.decode(bytes);
}
