/**
 * The baseline: a bare Fastify route with no auth, limits, validation or store that makes the
 * same upstream call as `recipes.search` execute (TheMealDB search.php on the replay server,
 * through an undici Agent configured like Quarry's upstream client), parses the JSON and returns it.
 */
import Fastify, { type FastifyInstance } from "fastify";
import { Agent, request } from "undici";

/** TheMealDB's public test key, as in the recorded paths (replay-env keeps it). */
const MEALDB_KEY = "1";

export interface BareApp {
  app: FastifyInstance;
  close(): Promise<void>;
}

export async function buildBareApp(replayUrl: string): Promise<BareApp> {
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: 128, headersTimeout: 0, bodyTimeout: 0 });
  const app = Fastify({ logger: false });
  app.post<{ Body: { query?: unknown } }>("/bare/recipes", async (req) => {
    const query = typeof req.body?.query === "string" ? req.body.query : "";
    const url = `${replayUrl}/themealdb/api/json/v1/${MEALDB_KEY}/search.php?${new URLSearchParams({ s: query })}`;
    const res = await request(url, {
      method: "GET",
      dispatcher: agent,
      headers: { "user-agent": "Quarry bench (bare route)", accept: "application/json" },
    });
    const text = await res.body.text();
    return JSON.parse(text) as unknown;
  });
  return {
    app,
    async close() {
      await app.close();
      await agent.close();
    },
  };
}
