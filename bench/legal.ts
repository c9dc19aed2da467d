/**
 * `npm run bench -- --only legal`: legal.read's splitting of a document into sections.
 *
 * 1. The event loop while a 1 MB act (the recorded EUR-Lex consolidated ePrivacy Directive, 70 KB,
 *    its body repeated to about 1 MB; synthetic, for timing only) is split through legal.read's worker
 *    pool (split-pool.ts), two documents in flight for 5 s (`monitorEventLoopDelay`, 1 ms resolution),
 *    against the same measure with nothing running. The loop only posts the text and takes the
 *    sections back.
 * 2. On this thread (what the event loop would be blocked for if splitting ran there): htmlSections
 *    on the recorded document and on copies scaled to about 1 and 4 MB, best and median of 5 after
 *    warm-up. Run second: the documents it parses leave garbage whose collection would otherwise land
 *    in the first measurement.
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { EU_ACT_SPLIT } from "../src/capabilities/legal-read/eu-official.ts";
import { htmlSections } from "../src/capabilities/legal-read/html-sections.ts";
import { closeSplitPool, splitHtml } from "../src/capabilities/legal-read/split-pool.ts";
import { percentile } from "./stats.ts";

const FIXTURE = new URL("../fixtures/providers/eurlex/txt_html_consolidated_02002L0058_20091219.html", import.meta.url);
const OPTIONS = EU_ACT_SPLIT;
const LOAD_MS = 5000;

/** The recorded document with its body repeated `times` times (synthetic, for timing only). */
function scaled(html: string, times: number): string {
  const open = html.indexOf(">", html.indexOf("<body")) + 1;
  const close = html.lastIndexOf("</body>");
  return html.slice(0, open) + html.slice(open, close).repeat(times) + html.slice(close);
}

const f1 = (n: number) => n.toFixed(1);

export async function runLegalBench(): Promise<void> {
  const recorded = readFileSync(FIXTURE, "utf8");
  const docs = [
    { name: "recorded ePrivacy Directive (EUR-Lex)", html: recorded },
    { name: "scaled ×15 (synthetic)", html: scaled(recorded, 15) },
    { name: "scaled ×60 (synthetic)", html: scaled(recorded, 60) },
  ];
  console.log(`legal.read splitting; load average ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  const idle = monitorEventLoopDelay({ resolution: 1 });
  idle.enable();
  await new Promise((r) => setTimeout(r, 3000));
  idle.disable();

  const heavy = docs[1]!.html;
  const signal = () => AbortSignal.timeout(60_000);
  await splitHtml(heavy, "warm-up", OPTIONS, signal()); // start a thread
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const started = performance.now();
  let done = 0;
  await Promise.all(
    Array.from({ length: 2 }, async () => {
      while (performance.now() - started < LOAD_MS) {
        await splitHtml(heavy, "bench", OPTIONS, signal());
        done += 1;
      }
    }),
  );
  loop.disable();
  await closeSplitPool();
  console.log("\n| event loop | documents split | delay p99 ms | longest block ms |\n| --- | ---: | ---: | ---: |");
  console.log(`| idle (nothing running, 3 s) | | ${f1(idle.percentile(99) / 1e6)} | ${f1(idle.max / 1e6)} |`);
  console.log(`| splitting the 1 MB copy on the pool (2 in flight, 5 s) | ${done} | ${f1(loop.percentile(99) / 1e6)} | ${f1(loop.max / 1e6)} |`);
  console.log("\n| document | MB | sections | best ms | median ms |\n| --- | ---: | ---: | ---: | ---: |");
  for (const doc of docs) {
    htmlSections(doc.html, "warm-up", OPTIONS);
    const ms: number[] = [];
    let sections = 0;
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      sections = htmlSections(doc.html, "bench", OPTIONS).sections.length;
      ms.push(performance.now() - t);
    }
    ms.sort((a, b) => a - b);
    console.log(`| ${doc.name} | ${f1(doc.html.length / 1e6)} | ${sections} | ${f1(ms[0]!)} | ${f1(percentile(ms, 50))} |`);
  }
}
