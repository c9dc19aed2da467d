// Extraction pieces: scripts and styles cut before parsing (JSON-LD kept), the block-aware text,
// relative links made absolute, cutting by code points, and charset decoding.
import assert from "node:assert/strict";
import { test } from "node:test";
import { cutChars } from "./chars.ts";
import { decodePage, metaCharset } from "./decode.ts";
import { extractHtml, stripInert } from "./extract.ts";

test("stripInert drops scripts and style sheets, keeps JSON-LD and everything else", () => {
  const html = `<p>a</p><script>var x = "</p>";</script><script type="application/ld+json">{"headline":"H"}</script><STYLE media="x">p{}</STYLE><noscript><img src="i.png"></noscript><p>b</p>`;
  assert.equal(stripInert(html), `<p>a</p><script type="application/ld+json">{"headline":"H"}</script><noscript><img src="i.png"></noscript><p>b</p>`);
});

test("an article as Markdown and as text; relative links resolved against the page's address", () => {
  const para = "A paragraph long enough for Readability to count it as the article's content. ".repeat(4);
  const html = `<html><head><title>T | Site</title></head><body><nav><a href="/">Home</a></nav><article><h1>Heading</h1><p>${para}<a href="/doc/x">link</a></p><ul><li>one</li><li>two</li></ul><p>${para}</p></article></body></html>`;
  const md = extractHtml(html, "https://example.org/a/b.html", "markdown");
  assert.equal(md.title, "T | Site");
  assert.match(md.content, /\[link\]\(https:\/\/example\.org\/doc\/x\)/);
  assert.match(md.content, /^-\s+one$/m);
  assert.doesNotMatch(md.content, /Home/);
  const text = extractHtml(html, "https://example.org/a/b.html", "text");
  assert.match(text.content, /count it as the article's content\. link\n\none\n\ntwo\n\nA paragraph/);
});

test("cutChars counts code points and never splits one", () => {
  assert.deepEqual(cutChars("héllo", 10), { content: "héllo", chars: 5, truncated: false });
  assert.deepEqual(cutChars("a😀b😀c", 3), { content: "a😀b", chars: 5, truncated: true });
  assert.deepEqual(cutChars("abc", 3), { content: "abc", chars: 3, truncated: false });
});

test("decoding: BOM, then the header's charset, then the page's <meta>, else UTF-8", () => {
  const latin1 = Buffer.from('<meta charset="iso-8859-1"><p>K\u00f6ln</p>', "latin1");
  assert.equal(metaCharset(latin1), "iso-8859-1");
  assert.match(decodePage(latin1, undefined, true), /Köln/);
  assert.match(decodePage(latin1, "windows-1252", false), /Köln/);
  assert.match(decodePage(Buffer.from("<p>Köln</p>"), "no-such-charset", true), /Köln/);
  assert.equal(decodePage(Buffer.from([0xef, 0xbb, 0xbf, 0x41]), "iso-8859-1", true), "A");
});
