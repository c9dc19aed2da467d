/**
 * Calls in doubt, kept on disk (PostgreSQL only). A call whose COMMIT reply was lost while the
 * database stayed away is answered 503 and must be undone should it have committed
 * (postgres/commit.ts, postgres/lost-calls.ts). The store asks about it until the database answers;
 * this journal keeps the call across a stop of the serving process, so the next store opened on the
 * same directory settles it.
 *
 * One JSON file per call (`<ledger id>.json`), written before the 503 goes out (written to a
 * temporary name, fsynced, renamed, directory fsynced) and removed once the call is settled. A call
 * that cannot be settled automatically (asking about its transaction failed, the undo failed) is
 * moved to `unresolved/` for an operator; so is a file that cannot be read. Several stores may share
 * the directory: each only takes the files of its own schema and database (`storeId`), and settling
 * is idempotent (the undo keys on the ledger row, which only the first undo finds).
 */
import { link, mkdir, open, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** What settling a call in doubt needs: small, so it is cheap to keep in memory and on disk. */
export interface InDoubtCall {
  /** Its transaction's id (txid_current), asked about with txid_status. */
  xid: string;
  /** The PostgreSQL schema its store used (null: the connection's default search path). */
  schema: string | null;
  /**
   * The identity of the database it was written against (table store_identity); null in files
   * written before there was one, which any store of the same schema takes.
   */
  storeId: string | null;
  /** The account's period when the call was charged: its credits are given back only within it. */
  periodEnd: number | null;
  ledger: { id: string; requestId: string; accountId: string; credits: number };
  /**
   * The key whose limit the call was charged against (its use is given back too, within the same
   * period); null or absent when its key had no limit (and in files written before keys had limits).
   */
  keyId?: string | null;
  /** A search the call created (deleted with its records when undone). */
  newSessionId: string | null;
  /** A follow-up's change to its session, put back when undone. */
  update: {
    id: string;
    /** The state the call left; the session is restored only if it still has it. */
    state: unknown;
    previousQuery: unknown;
    previousState: unknown;
    recordIds: string[];
  } | null;
}

const SAFE_NAME = /^[A-Za-z0-9_-]{1,100}$/;
const UNRESOLVED = "unresolved";

export class InDoubtJournal {
  constructor(readonly dir: string) {}

  private file(call: InDoubtCall, inDir = this.dir): string {
    if (!SAFE_NAME.test(call.ledger.id))
      throw new Error(`unexpected ledger id ${JSON.stringify(call.ledger.id)}`);
    return join(inDir, `${call.ledger.id}.json`);
  }

  /** Where a call set aside for an operator ends up. */
  unresolvedFile(call: InDoubtCall): string {
    return this.file(call, join(this.dir, UNRESOLVED));
  }

  /** Keep `call` durably: once this resolves, a crash does not lose it. */
  async add(call: InDoubtCall): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const final = this.file(call);
    const temporary = `${final}.tmp`;
    await writeFile(temporary, `${JSON.stringify(call)}\n`, { flush: true });
    await rename(temporary, final);
    await syncDir(this.dir);
  }

  /** The call is settled: forget it (a file another store removed first is fine). */
  async remove(call: InDoubtCall): Promise<void> {
    await rm(this.file(call), { force: true });
  }

  /** The call needs an operator: move its file to `unresolved/`. */
  async setAside(call: InDoubtCall): Promise<void> {
    await moveAside(this.dir, `${call.ledger.id}.json`);
  }

  /**
   * The calls kept for `schema` of the database `storeId` (`mine`), and those of `schema` written
   * against another database (`foreign`: left where they are, for a store of that database).
   * Unreadable files are moved to `unresolved/`.
   */
  async load(
    schema: string | null,
    storeId: string,
  ): Promise<{ mine: InDoubtCall[]; foreign: InDoubtCall[] }> {
    const mine: InDoubtCall[] = [];
    const foreign: InDoubtCall[] = [];
    for (const name of await journalNames(this.dir)) {
      let call: InDoubtCall | null = null;
      try {
        call = parseInDoubt(await readFile(join(this.dir, name), "utf8"));
      } catch (error) {
        // Removed by another store settling it meanwhile.
        if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      }
      if (call === null || `${call.ledger.id}.json` !== name) await moveAside(this.dir, name);
      else if (call.schema === schema)
        (call.storeId === null || call.storeId === storeId ? mine : foreign).push(call);
    }
    return { mine, foreign };
  }
}

/** One journal file as an operator sees it (`quarry in-doubt list`). */
export interface InDoubtEntry {
  file: string;
  /** "pending": a server settles it at its next start; "unresolved": set aside for an operator. */
  state: "pending" | "unresolved";
  /** The call, or null when the file is not one this version can read. */
  call: InDoubtCall | null;
}

/** Every journal file, pending and set aside, without moving anything (for the operator CLI). */
export async function listInDoubt(dir: string): Promise<InDoubtEntry[]> {
  const entries: InDoubtEntry[] = [];
  for (const [state, inDir] of [
    ["pending", dir],
    ["unresolved", join(dir, UNRESOLVED)],
  ] as const) {
    for (const name of await journalNames(inDir)) {
      const file = join(inDir, name);
      let call: InDoubtCall | null = null;
      try {
        call = parseInDoubt(await readFile(file, "utf8"));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") continue; // settled meanwhile
        throw error;
      }
      entries.push({ file, state, call });
    }
  }
  return entries;
}

/**
 * Put the calls set aside back with the pending ones, so that the next store to load the journal
 * tries them again (`quarry in-doubt settle`). A call pending under the same name stays as it is.
 * Returns how many were put back.
 */
export async function retryUnresolved(dir: string): Promise<number> {
  let moved = 0;
  for (const name of await journalNames(join(dir, UNRESOLVED))) {
    try {
      await link(join(dir, UNRESOLVED, name), join(dir, name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    await rm(join(dir, UNRESOLVED, name), { force: true });
    moved++;
  }
  if (moved > 0) await syncDir(dir);
  return moved;
}

/** The journal files (`*.json`) in `dir`, sorted; none when it does not exist. */
async function journalNames(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((name) => name.endsWith(".json")).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

async function moveAside(dir: string, name: string): Promise<void> {
  await mkdir(join(dir, UNRESOLVED), { recursive: true });
  try {
    await rename(join(dir, name), join(dir, UNRESOLVED, name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

/** fsync a directory so a rename in it survives a crash. */
async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === "string";

/** A journal file's call, or null when it is not one this version wrote. */
export function parseInDoubt(text: string): InDoubtCall | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(v) || !isObject(v.ledger)) return null;
  const { ledger, update } = v;
  const ok =
    isString(v.xid) &&
    /^[0-9]{1,20}$/.test(v.xid) &&
    (v.schema === null || isString(v.schema)) &&
    (v.periodEnd === null || Number.isSafeInteger(v.periodEnd)) &&
    isString(ledger.id) &&
    SAFE_NAME.test(ledger.id) &&
    isString(ledger.requestId) &&
    isString(ledger.accountId) &&
    Number.isSafeInteger(ledger.credits) &&
    (v.newSessionId === null || isString(v.newSessionId)) &&
    (update === null ||
      (isObject(update) &&
        isString(update.id) &&
        Array.isArray(update.recordIds) &&
        update.recordIds.every(isString) &&
        "state" in update &&
        "previousQuery" in update &&
        "previousState" in update));
  if (!ok || !(v.storeId === undefined || v.storeId === null || isString(v.storeId))) return null;
  if (!(v.keyId === undefined || v.keyId === null || isString(v.keyId))) return null;
  return { ...(v as unknown as InDoubtCall), storeId: v.storeId ?? null };
}
