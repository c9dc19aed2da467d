/**
 * Output helpers for the operator CLI: aligned text tables for people, one JSON document for
 * scripts (`--json`), and the one-line error format. Kept apart from the commands so every
 * command prints the same way.
 */

/** Where a command writes; injected so the command code never touches process streams directly. */
export interface Output {
  /** A line (or block) of the command's result, on stdout. */
  line(text: string): void;
  /** A notice for the operator that is not part of the result (warnings), on stderr. */
  notice(text: string): void;
}

export const processOutput: Output = {
  line: (text) => {
    process.stdout.write(`${text}\n`);
  },
  notice: (text) => {
    process.stderr.write(`${text}\n`);
  },
};

/** Epoch ms to ISO 8601, or "-" for "never"/"none" in tables. */
export function isoOrDash(ms: number | null): string {
  return ms === null ? "-" : new Date(ms).toISOString();
}

/** Epoch ms to ISO 8601 or JSON null. */
export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** Columns padded to the widest cell; the last column is not padded so lines carry no trailing blanks. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const render = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [render(headers), ...rows.map(render)].join("\n");
}

/** `label   value` pairs aligned on the value column, for single-object views. */
export function fields(pairs: [string, string][]): string {
  const width = Math.max(...pairs.map(([label]) => label.length));
  return pairs.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join("\n");
}

export function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}
