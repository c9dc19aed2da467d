/**
 * Bot challenges and block pages, recognised once for every provider. Web application firewalls in
 * front of some providers (EUR-Lex behind AWS WAF since November 2025, sites behind Cloudflare)
 * answer automated clients with a JavaScript challenge: often with a 2xx status (AWS WAF answers
 * 202), so without this check the challenge page would be read as the document. YouTube's "confirm
 * you're not a bot" is the same kind of answer. Markers are specific strings of those pages, looked
 * for in the head of an HTML answer only, so a document that merely mentions a CAPTCHA is not one.
 */

/** Response headers that say a challenge answered, with the value that says it. */
const HEADER_MARKERS: readonly { header: string; value: RegExp; name: string }[] = [
  { header: "cf-mitigated", value: /challenge/i, name: "Cloudflare challenge" },
  { header: "x-amzn-waf-action", value: /challenge|captcha|block/i, name: "AWS WAF challenge" },
];

/** Strings of challenge and block pages (their first bytes), with the name said in errors. */
const BODY_MARKERS: readonly { marker: string; name: string }[] = [
  { marker: "awsWafCookieDomainList", name: "AWS WAF challenge" },
  { marker: "AwsWafIntegration", name: "AWS WAF challenge" },
  { marker: "/cdn-cgi/challenge-platform/", name: "Cloudflare challenge" },
  { marker: "window._cf_chl_opt", name: "Cloudflare challenge" },
  { marker: "<title>Just a moment...</title>", name: "Cloudflare challenge" },
  { marker: "cf-browser-verification", name: "Cloudflare challenge" },
  { marker: "captcha-delivery.com", name: "DataDome challenge" },
  { marker: "_Incapsula_Resource", name: "Imperva challenge" },
  { marker: "px-captcha", name: "HUMAN (PerimeterX) challenge" },
  { marker: "Sign in to confirm you\u2019re not a bot", name: "YouTube bot check" },
  { marker: "Sign in to confirm you're not a bot", name: "YouTube bot check" },
];

/** How much of an answer is searched for body markers: challenge pages put them in their first kilobytes. */
const HEAD_BYTES = 16_384;

/** Whether a text answer is an HTML page (by its content type, else by how it starts). */
export function looksLikeHtml(text: string, contentType?: string): boolean {
  if (contentType !== undefined && /\btext\/html\b/i.test(contentType)) return true;
  const start = text.slice(0, 512).trimStart().slice(0, 64).toLowerCase();
  return start.startsWith("<!doctype html") || start.startsWith("<html") || start.startsWith("<head");
}

function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(",") : v;
}

/**
 * The kind of challenge or block page this answer is ("AWS WAF challenge"), or undefined when it is
 * not one. `text` is the answer's text when it was read as text (absent for binary answers, whose
 * headers are still checked).
 */
export function challengeOf(headers: Record<string, string | string[] | undefined>, text?: string): string | undefined {
  for (const m of HEADER_MARKERS) {
    const v = headerValue(headers, m.header);
    if (v !== undefined && m.value.test(v)) return m.name;
  }
  if (text === undefined || !looksLikeHtml(text, headerValue(headers, "content-type"))) return undefined;
  const head = text.length > HEAD_BYTES ? text.slice(0, HEAD_BYTES) : text;
  return BODY_MARKERS.find((m) => head.includes(m.marker))?.name;
}
