/**
 * The worker thread's side of `xbrl-pool.ts`: extract the facts of one instance (xbrl.ts) and build
 * what the call answers from them (facts.ts): a fact view's records, or a record action's detail.
 * Only that crosses back to the event loop, never the whole parse. A well-formed document without a
 * part the extraction reads (xbrl.ts, `XbrlDrift`) comes back as `{drift: {pointer, problem}}`, data
 * the pool answers as ProviderDrift; one that is not readable XML as `{error}` (provider_error);
 * anything else thrown fails the task.
 */
import type { JsonObject, Link, RecordDraft } from "../types.ts";
import { type FactView, type FilingRef, factDetail, factPage } from "./facts.ts";
import { extractFacts, XbrlDrift, XbrlFormatError } from "./xbrl.ts";

export interface ExtractTask<O extends "records" | "detail" = "records" | "detail"> {
  instance: string;
  labels: string | null;
  ref: FilingRef;
  view: FactView;
  output: O;
}

export type Records = { records: RecordDraft[]; notes: string[]; source: string };
export type Detail = { detail: JsonObject; links: Link[] };
export type Drift = { drift: { pointer: string; problem: string } };
export type ExtractResult = Records | Detail | Drift | { error: string };

export default function extract(task: ExtractTask): ExtractResult {
  try {
    const extraction = extractFacts(task.instance, task.labels, task.ref.instanceUrl);
    return task.output === "records" ? factPage(extraction, task.ref, task.view) : factDetail(extraction, task.ref, task.view);
  } catch (err) {
    if (err instanceof XbrlDrift) return { drift: { pointer: err.pointer, problem: err.problem } };
    if (err instanceof XbrlFormatError) return { error: err.message };
    throw err;
  }
}
