/**
 * The usage chart: credits per UTC day, stacked by capability, as inline SVG drawn on the server
 * (no script, no external resource, readable without JavaScript). Each segment has a <title> (a
 * tooltip); the chart is one image with a text alternative, and the same numbers are in the table
 * beside it.
 */
import { html, type SafeHtml } from "./html.ts";

export interface ChartDay {
  /** Epoch ms of the UTC midnight. */
  day: number;
  /** Amount per capability on that day. */
  values: Map<string, number>;
}

/** Colour slots (CSS classes .series-0 … .series-5); capabilities past the fifth share the last. */
const SLOTS = 6;

const WIDTH = 720;
const HEIGHT = 220;
const PAD = { left: 44, right: 8, top: 10, bottom: 28 };

/** A round step (1, 2 or 5 × a power of ten, at least 1) for about four gridlines up to `value`. */
function niceStep(value: number): number {
  const rough = Math.max(1, value / 4);
  const exp = 10 ** Math.floor(Math.log10(rough));
  for (const step of [1, 2, 5, 10]) if (step * exp >= rough) return step * exp;
  return 10 * exp;
}

const dayLabel = (ms: number) => new Date(ms).toISOString().slice(5, 10);

/** The series order: largest total first; returns each capability's colour slot. */
export function seriesSlots(days: ChartDay[]): Map<string, number> {
  const totals = new Map<string, number>();
  for (const d of days) for (const [k, v] of d.values) if (v > 0) totals.set(k, (totals.get(k) ?? 0) + v);
  const order = [...totals.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([k]) => k);
  return new Map(order.map((k, i) => [k, Math.min(i, SLOTS - 1)]));
}

export function usageChart(days: ChartDay[], unit: string, summary: string): SafeHtml {
  const slots = seriesSlots(days);
  const highest = Math.max(0, ...days.map((d) => [...d.values.values()].reduce((a, b) => a + b, 0)));
  const step = niceStep(highest);
  const max = Math.max(step, Math.ceil(highest / step) * step);
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, days.length);
  const barW = Math.max(2, Math.min(28, slot * 0.7));
  const y = (v: number) => PAD.top + plotH - (v / max) * plotH;
  const ticks = Array.from({ length: Math.round(max / step) + 1 }, (_, i) => i * step);
  const labelEvery = Math.max(1, Math.ceil(days.length / 10));
  const bars = days.map((d, i) => {
    const x = PAD.left + i * slot + (slot - barW) / 2;
    let top = 0;
    const segments = [...d.values.entries()]
      .filter(([, v]) => v > 0)
      .sort((a, b) => (slots.get(a[0]) ?? 0) - (slots.get(b[0]) ?? 0))
      .map(([capability, v]) => {
        const y1 = y(top + v);
        const h = y(top) - y1;
        top += v;
        return html`<rect class="series-${slots.get(capability) ?? 0}" x="${x.toFixed(1)}" y="${y1.toFixed(1)}" width="${barW.toFixed(1)}" height="${Math.max(0.5, h).toFixed(1)}"><title>${new Date(d.day).toISOString().slice(0, 10)} · ${capability}: ${v} ${unit}</title></rect>`;
      });
    const label =
      i % labelEvery === 0
        ? html`<text class="axis" x="${(PAD.left + i * slot + slot / 2).toFixed(1)}" y="${HEIGHT - 8}" text-anchor="middle">${dayLabel(d.day)}</text>`
        : "";
    return html`${segments}${label}`;
  });
  const grid = ticks.map(
    (t) =>
      html`<line class="gridline" x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}"></line><text class="axis" x="${PAD.left - 6}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end">${t.toLocaleString("en-US")}</text>`,
  );
  return html`<figure class="chart">
<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${summary}" preserveAspectRatio="xMidYMid meet">${grid}${bars}</svg>
<figcaption><ul class="legend">${[...slots.entries()].map(
    ([capability, i]) => html`<li><span class="swatch series-${i}" aria-hidden="true"></span>${capability}</li>`,
  )}</ul></figcaption>
</figure>`;
}
