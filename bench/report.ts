/**
 * Printing: the environment line, per-scenario figures, targets with PASS/MISS, and a compact
 * markdown block that can be pasted into the docs. Figures only: nothing here fails the run.
 */
import { cpus } from "node:os";
import type { LoadResult } from "./load.ts";

export interface Target {
  label: string;
  measured: string;
  goal: string;
  /** null when it could not be measured. */
  pass: boolean | null;
}

export function environmentLine(storeKind: string, extra: string): string {
  const cpu = cpus();
  const model = cpu[0]?.model.trim() ?? "unknown CPU";
  return `node ${process.version}, ${cpu.length} CPU (${model}), store ${storeKind} (embedded, temp dir), ${extra}`;
}

export const fmt = {
  rps: (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "n/a"),
  ms: (n: number) => (Number.isFinite(n) ? n.toFixed(2) : "n/a"),
  ratio: (n: number) => (Number.isFinite(n) ? `${n.toFixed(2)}×` : "n/a"),
  mb: (bytes: number) => (bytes / (1024 * 1024)).toFixed(1),
};

function pad(cells: string[], widths: number[]): string {
  return cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
}

/** A plain aligned table for the console. */
export function consoleTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  return [pad(header, widths), ...rows.map((r) => pad(r, widths))].map((l) => `  ${l}`).join("\n");
}

export function markdownTable(header: string[], rows: string[][]): string {
  const align = header.map((_, i) => (i === 0 ? "---" : "---:"));
  return [header, align, ...rows].map((r) => `| ${r.join(" | ")} |`).join("\n");
}

export const LOAD_HEADER = [
  "scenario",
  "req/s",
  "p50 ms",
  "p99 ms",
  "non-2xx",
  "errors",
  "CPU µs/resp: loop + threads (driver)",
  "loop % run / wait / idle",
];

export function loadRow(r: LoadResult): string[] {
  const us = (n: number) => Math.round(n).toString();
  const cpu = r.cpu ? `${us(r.cpu.main)} + ${us(r.cpu.others)} (${us(r.cpu.driver)})` : "n/a";
  const pct = (share: number) => (share * 100).toFixed(1);
  const loop = r.cpu?.loop ? `${pct(r.cpu.loop.run)} / ${pct(r.cpu.loop.wait)} / ${pct(r.cpu.loop.idle)}` : "n/a";
  return [r.name, fmt.rps(r.rps), fmt.ms(r.p50), fmt.ms(r.p99), String(r.non2xx), String(r.errors), cpu, loop];
}

export function verdict(pass: boolean | null): string {
  return pass === null ? "n/a" : pass ? "PASS" : "MISS";
}

export const TARGET_HEADER = ["figure", "measured", "target", "verdict"];

export function targetRow(t: Target): string[] {
  return [t.label, t.measured, t.goal, verdict(t.pass)];
}

/** Non-2xx statuses of a run, e.g. `404×3, 500×1`; empty when none. */
export function statusSummary(r: LoadResult): string {
  return Object.entries(r.statuses)
    .filter(([code]) => !code.startsWith("2"))
    .map(([code, n]) => `${code}×${n}`)
    .join(", ");
}
