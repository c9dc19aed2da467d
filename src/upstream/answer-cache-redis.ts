/**
 * The answer cache shared through Redis (REDIS_URL): this process's memory first, then Redis, so
 * one provider call per time to live serves every instance of the deployment. What is stored in
 * Redis is bounded: an answer larger than `maxEntryBytes` is kept in memory only, every key expires
 * with its time to live (PX), and keys are named under the deployment's own prefix (AnswerCache). Redis is a
 * cache here, never a dependency: a command that fails or takes longer than `commandTimeoutMs` is a
 * miss (or a store skipped), logged once per outage, and the call goes to the provider.
 */
import { createClient } from "redis";
import { type AnswerCacheBounds, type AnswerStore, DEFAULT_ANSWER_BOUNDS, MemoryAnswerStore, type StoredAnswer } from "./answer-cache.ts";

type RedisClient = ReturnType<typeof newClient>;

function newClient(url: string) {
  return createClient({
    url,
    disableOfflineQueue: true,
    commandOptions: { timeout: 0 },
    socket: { connectTimeout: 2000, reconnectStrategy: (retries) => Math.min(retries * 200, 2000) },
  });
}

/** How long an answer read from Redis is also kept in this process. */
const MEMORY_COPY_MS = 60_000;

export interface RedisAnswerOptions {
  bounds?: AnswerCacheBounds;
  /** Longest wait for one command; past it the command counts as a miss. */
  commandTimeoutMs?: number;
  logger?: { warn(obj: object, msg: string): void };
}

export class RedisAnswerStore implements AnswerStore {
  private readonly memory: MemoryAnswerStore;
  private readonly bounds: AnswerCacheBounds;
  private failing = false;

  private constructor(
    private readonly client: RedisClient,
    private readonly options: RedisAnswerOptions,
  ) {
    this.bounds = options.bounds ?? DEFAULT_ANSWER_BOUNDS;
    this.memory = new MemoryAnswerStore(this.bounds);
  }

  static async connect(url: string, options: RedisAnswerOptions): Promise<RedisAnswerStore> {
    const client = newClient(url);
    client.on("error", () => undefined);
    await client.connect();
    return new RedisAnswerStore(client, options);
  }

  private async bounded<T>(run: () => Promise<T>): Promise<T | undefined> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const result = await Promise.race([
        run(),
        new Promise<undefined>((resolve) => {
          timer = setTimeout(() => resolve(undefined), this.options.commandTimeoutMs ?? 200);
        }),
      ]);
      if (this.failing) {
        this.failing = false;
        this.options.logger?.warn({}, "the answer cache reaches Redis again");
      }
      return result;
    } catch (err) {
      if (!this.failing) {
        this.failing = true;
        this.options.logger?.warn({ reason: (err as Error).message }, "the answer cache cannot reach Redis; answers are cached in this process only meanwhile");
      }
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  async get(key: string): Promise<StoredAnswer | undefined> {
    const local = await this.memory.get(key);
    if (local !== undefined) return local;
    const raw = await this.bounded(() => this.client.get(key));
    if (typeof raw !== "string") return undefined;
    try {
      const answer = JSON.parse(raw) as StoredAnswer;
      // Kept in this process too for a minute (the reader checks its age against the time to live).
      await this.memory.set(key, answer, MEMORY_COPY_MS);
      return answer;
    } catch {
      return undefined;
    }
  }

  async set(key: string, answer: StoredAnswer, ttlMs: number): Promise<void> {
    await this.memory.set(key, answer, ttlMs);
    if (ttlMs <= 0 || answer.text.length > this.bounds.maxEntryBytes) return;
    const value = JSON.stringify(answer);
    await this.bounded(() => this.client.set(key, value, { PX: Math.ceil(ttlMs) }));
  }

  size() {
    return this.memory.size();
  }

  async close(): Promise<void> {
    await this.memory.close();
    await this.client.quit().catch(() => undefined);
  }
}
