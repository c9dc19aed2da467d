/**
 * The answer cache's memory (issue 41): the heap 10,000 entries of the bench's own recorded answer
 * (recipes.search's TheMealDB meal) take in a MemoryAnswerStore, measured in this process after a
 * full garbage collection before and after filling it.
 */
import { readFileSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { MemoryAnswerStore } from "../src/upstream/answer-cache.ts";

const ENTRIES = 10_000;

function collect(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

export function answerCacheMemoryNote(): string {
  const text = readFileSync(new URL("../fixtures/providers/themealdb/search_single_result.json", import.meta.url), "utf8");
  const store = new MemoryAnswerStore({ maxEntries: ENTRIES, maxBytes: 1024 * 1024 * 1024, maxEntryBytes: 1024 * 1024 });
  collect();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < ENTRIES; i++) {
    // A copy per entry, as each answer read from a provider is its own string.
    void store.set(`answers:${i}`, { status: 200, headers: { "content-type": "application/json" }, text: `${text} `.slice(0, text.length), at: Date.now() }, 3_600_000);
  }
  collect();
  const used = process.memoryUsage().heapUsed - before;
  const size = store.size();
  return (
    `answer cache memory: ${ENTRIES.toLocaleString("en-US")} entries of a ${text.length.toLocaleString("en-US")}-character answer take ` +
    `${(used / 1024 / 1024).toFixed(1)} MiB of heap (${Math.round(used / ENTRIES)} bytes an entry; the store counts ${(size.bytes / 1024 / 1024).toFixed(1)} MiB)`
  );
}
