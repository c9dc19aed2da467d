/**
 * HTML for the dashboard's server-rendered pages: a tagged template that escapes every value put
 * into it (text and attribute values alike), unless the value is itself markup made by `html`.
 * Nothing a person or a provider typed can become markup.
 */

/** Markup made by `html` (safe to put into more markup as it is). */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new SafeHtml(out);
}

/** Markup as it is: only for text this code wrote (never for anything a person or provider sent). */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup);
}
