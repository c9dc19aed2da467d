/**
 * Documents and health: the OpenAPI documents (public one without auth and rate limit), the
 * Markdown guide, liveness and readiness (503 when the database probe fails).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Services } from "../services.ts";
import { buildOpenApi } from "./openapi.ts";

type AuthHook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

const PROBE_TIMEOUT_MS = 2000;

function withTimeout(probe: () => Promise<void>): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("probe timed out")), PROBE_TIMEOUT_MS);
    probe().then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

export function registerDocsRoutes(
  app: FastifyInstance,
  services: Services,
  auth: AuthHook,
  options: { version: string; probes: Record<string, () => Promise<void>> },
): void {
  const openapi = JSON.stringify(buildOpenApi(services.registry));
  const guide = services.guide();

  app.get("/v1/openapi.public.json", async (_request, reply) => reply.type("application/json; charset=utf-8").send(openapi));
  app.get("/v1/openapi.json", { onRequest: auth }, async (_request, reply) =>
    reply.type("application/json; charset=utf-8").send(openapi),
  );
  app.get("/v1/guide", { onRequest: auth }, async (_request, reply) => reply.type("text/markdown; charset=utf-8").send(guide));

  app.get("/health/live", async () => ({ status: "ok", checks: {}, version: options.version }));
  app.get("/health/ready", async (_request, reply) => {
    const checks: Record<string, string> = {};
    let ready = true;
    await Promise.all(
      Object.entries(options.probes).map(async ([name, probe]) => {
        try {
          await withTimeout(probe);
          checks[name] = "ok";
        } catch {
          checks[name] = "down";
          // Only the database decides readiness; other probes are reported.
          if (name === "database") ready = false;
        }
      }),
    );
    reply.code(ready ? 200 : 503).header("cache-control", "no-store");
    return { status: ready ? "ok" : "unavailable", checks, version: options.version };
  });
}
