/**
 * `npm run bench -- --only read`: the local reader's extraction, HTML bytes in → Markdown out, no
 * network, over the corpus of real pages in bench/corpus/readability (Mozilla Readability's test
 * pages). Three figures:
 * 1. throughput and per-page latency of Readability + turndown on linkedom (what the reader runs),
 *    against a baseline of Readability + turndown on jsdom measured in the same run, in alternating
 *    rounds (the host's speed drifts); and how many pages give the same Markdown on both;
 * 2. the event loop while the heaviest corpus page is read through the reader's worker pool under
 *    load (`perf_hooks.monitorEventLoopDelay`): the longest block, against the 20 ms target;
 * 3. for contrast, the same page extracted on the event loop itself.
 */
import { readFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { gunzipSync } from "node:zlib";
import { Readability } from "@mozilla/readability";
import TurndownService from "turndown";
import { extractHtml } from "../src/reader/extract.ts";
import { closePool, poolSize, runExtraction } from "../src/reader/pool.ts";
import { percentile } from "./stats.ts";

interface CorpusPage {
  name: string;
  url: string;
  html: string;
  bytes: Buffer;
}

const CORPUS = new URL("./corpus/readability/", import.meta.url);

export function loadCorpus(): CorpusPage[] {
  const index = JSON.parse(readFileSync(new URL("index.json", CORPUS), "utf8")) as { name: string; file: string; url?: string }[];
  return index.map((entry) => {
    const bytes = gunzipSync(readFileSync(new URL(entry.file, CORPUS)));
    return { name: entry.name, url: entry.url ?? `https://corpus.invalid/${entry.name}/`, html: bytes.toString("utf8"), bytes };
  });
}

/** jsdom, loaded without its types: they pull the DOM library into the whole program (fetch's BodyInit). */
interface JsdomWindow {
  document: unknown;
  close(): void;
}
interface Jsdom {
  JSDOM: new (html: string, options: { url: string; virtualConsole: unknown }) => { window: JsdomWindow & { document: { body: unknown } } };
  VirtualConsole: new () => unknown;
}
const JSDOM_MODULE = "jsdom";
const { JSDOM, VirtualConsole } = (await import(JSDOM_MODULE)) as Jsdom;

const turndownForJsdom = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-", emDelimiter: "*" });
turndownForJsdom.remove(["script", "style", "noscript", "template", "iframe", "form", "button", "select", "input", "textarea"] as never);

/** The baseline: the same pipeline on jsdom. */
function jsdomMarkdown(page: CorpusPage): string {
  const dom = new JSDOM(page.html, { url: page.url, virtualConsole: new VirtualConsole() });
  try {
    const article = new Readability(dom.window.document as never, { serializer: (el: unknown) => el as never }).parse();
    const root = (article?.content as unknown) ?? dom.window.document.body;
    return turndownForJsdom.turndown(root as never).replace(/\n{3,}/g, "\n\n").trim();
  } finally {
    dom.window.close();
  }
}

function linkedomMarkdown(page: CorpusPage): string {
  return extractHtml(page.html, page.url, "markdown").content;
}

interface Series {
  times: number[];
  totalMs: number;
}

function time(fn: () => unknown, into: Series): void {
  const t = performance.now();
  fn();
  const ms = performance.now() - t;
  into.times.push(ms);
  into.totalMs += ms;
}

function stats(s: Series) {
  const sorted = Float64Array.from(s.times).sort();
  return { pagesPerSecond: (s.times.length / s.totalMs) * 1000, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1]! };
}

const f1 = (n: number) => n.toFixed(1);

export async function runReadBench(options: { rounds?: number; loadSeconds?: number } = {}): Promise<void> {
  const rounds = options.rounds ?? 5;
  const pages = loadCorpus();
  const bytes = pages.reduce((a, p) => a + p.bytes.length, 0);
  console.log(`Reader bench: ${pages.length} real pages (Mozilla Readability's test pages), ${(bytes / 1e6).toFixed(2)} MB of HTML; ${rounds} alternating rounds; node ${process.version}.`);

  const pool = await eventLoopUnderLoad(pages, options.loadSeconds ?? 5);

  // Warm-up and Markdown comparison.
  let identical = 0;
  for (const page of pages) if (linkedomMarkdown(page) === jsdomMarkdown(page)) identical += 1;

  const linkedom: Series = { times: [], totalMs: 0 };
  const jsdom: Series = { times: [], totalMs: 0 };
  const perPage = new Map<string, number[]>();
  for (let r = 0; r < rounds; r++) {
    for (const page of pages) {
      time(() => linkedomMarkdown(page), linkedom);
      perPage.set(page.name, [...(perPage.get(page.name) ?? []), linkedom.times.at(-1)!]);
    }
    for (const page of pages) time(() => jsdomMarkdown(page), jsdom);
  }
  const l = stats(linkedom);
  const j = stats(jsdom);
  const ratio = l.pagesPerSecond / j.pagesPerSecond;
  const heaviest = [...perPage.entries()].map(([name, t]) => [name, percentile(Float64Array.from(t).sort(), 50)] as const).sort((a, b) => b[1] - a[1]);
  console.log("\nExtraction, HTML → Markdown, one page at a time on one thread");
  console.log(`  linkedom + Readability + turndown: ${f1(l.pagesPerSecond)} pages/s, p50 ${f1(l.p50)} ms, p99 ${f1(l.p99)} ms, max ${f1(l.max)} ms`);
  console.log(`  jsdom + Readability + turndown:    ${f1(j.pagesPerSecond)} pages/s, p50 ${f1(j.p50)} ms, p99 ${f1(j.p99)} ms, max ${f1(j.max)} ms`);
  console.log(`  throughput ratio linkedom / jsdom: ${ratio.toFixed(2)}× (target ≥ 6×: ${ratio >= 6 ? "met" : "NOT met"})`);
  console.log(`  identical Markdown: ${identical} of ${pages.length} pages`);
  console.log(`  heaviest pages (median ms): ${heaviest.slice(0, 4).map(([n, ms]) => `${n} ${f1(ms)}`).join(", ")}`);

  console.log("\nMarkdown\n");
  console.log(`| scenario | pages/s | p50 ms | p99 ms | max ms |`);
  console.log(`|---|---|---|---|---|`);
  console.log(`| linkedom + Readability + turndown | ${f1(l.pagesPerSecond)} | ${f1(l.p50)} | ${f1(l.p99)} | ${f1(l.max)} |`);
  console.log(`| jsdom + Readability + turndown (baseline) | ${f1(j.pagesPerSecond)} | ${f1(j.p50)} | ${f1(j.p99)} | ${f1(j.max)} |`);
  console.log(`\nratio ${ratio.toFixed(2)}×; identical Markdown ${identical}/${pages.length}; event-loop max ${f1(pool.maxBlock)} ms under pool load (${pool.page}), ${f1(pool.inlineMax)} ms inline.`);
}

/**
 * Runs first, in a heap the comparison has not filled yet (jsdom's garbage, collected later, would
 * show up as the event loop's pauses here). The heaviest page is found by a quick timing pass.
 */
async function eventLoopUnderLoad(pages: CorpusPage[], loadSeconds: number): Promise<{ maxBlock: number; inlineMax: number; page: string }> {
  const loadMs = loadSeconds * 1000;
  // Timed in the pool (warmed by a first pass), so this heap stays clean for the measurement.
  const inPool = (p: CorpusPage) => runExtraction({ kind: "html", bytes: p.bytes, url: p.url, format: "markdown", maxChars: 200_000 });
  for (const p of pages) await inPool(p);
  const timed: (readonly [CorpusPage, number])[] = [];
  for (const p of pages) {
    const runs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      await inPool(p);
      runs.push(performance.now() - t);
    }
    timed.push([p, runs.sort((a, b) => a - b)[1]!]);
  }
  const heavy = [...timed].sort((a, b) => b[1] - a[1])[0]![0];

  // The host's own noise: the event loop with nothing to do, for as long as the measurement below.
  const idle = monitorEventLoopDelay({ resolution: 1 });
  idle.enable();
  await new Promise((r) => setTimeout(r, Math.min(loadMs, 3000)));
  idle.disable();
  console.log(`\nEvent loop idle (no work at all) on this host: delay p99 ${f1(idle.percentile(99) / 1e6)} ms, max ${f1(idle.max / 1e6)} ms`);
  // The event loop while the heaviest page is read through the pool, under load.
  const concurrency = poolSize() * 2;
  const task = () => runExtraction({ kind: "html", bytes: heavy.bytes, url: heavy.url, format: "markdown", maxChars: 200_000 });
  await Promise.all(Array.from({ length: poolSize() }, task)); // start the threads
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const started = performance.now();
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() - started < loadMs) {
        await task();
        done += 1;
      }
    }),
  );
  histogram.disable();
  const elapsed = (performance.now() - started) / 1000;
  const maxBlock = histogram.max / 1e6;
  console.log(`\nEvent loop while ${heavy.name} (${(heavy.bytes.length / 1e3).toFixed(0)} KB) is read through the worker pool (${poolSize()} thread${poolSize() === 1 ? "" : "s"}, ${concurrency} in flight, ${elapsed.toFixed(1)} s)`);
  console.log(`  ${f1(done / elapsed)} pages/s; event-loop delay p50 ${f1(histogram.percentile(50) / 1e6)} ms, p99 ${f1(histogram.percentile(99) / 1e6)} ms, max ${f1(maxBlock)} ms (target ≤ 20 ms: ${maxBlock <= 20 ? "met" : "NOT met"})`);

  const inline = monitorEventLoopDelay({ resolution: 1 });
  inline.enable();
  const inlineStart = performance.now();
  let inlineDone = 0;
  while (performance.now() - inlineStart < 2000) {
    extractHtml(heavy.html, heavy.url, "markdown");
    inlineDone += 1;
    await new Promise((r) => setImmediate(r));
  }
  inline.disable();
  console.log(`  for contrast, on the event loop itself: ${inlineDone} extractions, event-loop delay max ${f1(inline.max / 1e6)} ms`);
  await closePool();

  return { maxBlock, inlineMax: inline.max / 1e6, page: heavy.name };
}
