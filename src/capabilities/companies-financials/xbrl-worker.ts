/**
 * The worker thread's side of `xbrl-pool.ts`: extract the facts of one instance (xbrl.ts) off the
 * event loop. A document that is not an XBRL instance comes back as `{error}` (the pool maps it to
 * provider_error); anything else thrown fails the task.
 */
import { type Extraction, extractFacts, XbrlFormatError } from "./xbrl.ts";

export interface ExtractTask {
  instance: string;
  labels: string | null;
  instanceUrl: string;
}

export type ExtractResult = { extraction: Extraction } | { error: string };

export default function extract(task: ExtractTask): ExtractResult {
  try {
    return { extraction: extractFacts(task.instance, task.labels, task.instanceUrl) };
  } catch (err) {
    if (err instanceof XbrlFormatError) return { error: err.message };
    throw err;
  }
}
