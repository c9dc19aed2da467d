/**
 * The OAuth endpoints MCP hosts call without a person (src/people/oauth.ts has the rules): the two
 * metadata documents, dynamic client registration, the token endpoint and revocation. They answer
 * in OAuth's own JSON (RFC 6749 §5.2, RFC 7591 §3.2.2: `{error, error_description}`), which OAuth
 * clients read, not in Quarry's error envelope; they carry no session and allow any origin (CORS,
 * no credentials), as the MCP SDK's own handlers do. GET /oauth/authorize, which needs the person's
 * session, is in src/dashboard/routes.ts.
 */
import fastifyFormbody from "@fastify/formbody";
import {
  InvalidClientError,
  InvalidClientMetadataError,
  InvalidRequestError,
  OAuthError,
  ServerError,
  TooManyRequestsError,
} from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ApiError } from "../errors.ts";
import type { Services } from "../services.ts";
import { isObject } from "../validation.ts";
import { publicBase } from "./auth.ts";

const HOUR_MS = 3_600_000;
const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "authorization, content-type, mcp-protocol-version",
  "access-control-max-age": "600",
};

/** The OAuth error a failure answers with, and its status. */
function oauthError(error: unknown, request: FastifyRequest): { status: number; error: OAuthError } {
  if (error instanceof OAuthError) {
    const status = error instanceof InvalidClientError ? 401 : error instanceof TooManyRequestsError ? 429 : error instanceof ServerError ? 500 : 400;
    return { status, error };
  }
  const registering = request.url.startsWith("/oauth/register");
  const fastifyCode = (error as { code?: string } | null)?.code;
  const clientFault =
    (error instanceof ApiError && error.status < 500) ||
    (typeof fastifyCode === "string" && fastifyCode.startsWith("FST_ERR_CTP_")) ||
    ((error as { statusCode?: number } | null)?.statusCode ?? 500) < 500;
  if (clientFault) {
    const message = error instanceof Error ? error.message : "The request is not valid.";
    return { status: 400, error: registering ? new InvalidClientMetadataError(message) : new InvalidRequestError(message) };
  }
  return { status: 500, error: new ServerError("Something went wrong inside Quarry; try again.") };
}

function params(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (!isObject(body) || Array.isArray(body)) throw new InvalidRequestError("The body must be form parameters (application/x-www-form-urlencoded).");
  return body;
}

/**
 * One client registration from this address, or one fetch of a client's metadata document (anyone can
 * name a URL for Quarry to fetch, so fetches share the registrations' budget):
 * OAUTH_REGISTRATIONS_PER_HOUR per address, else 429 in OAuth's error format.
 */
export async function countRegistration(services: Services, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const limit = await services.limiter.hit(await services.limitName(`oauth-register:${request.ip}`), services.config.oauth.registrationsPerHour, HOUR_MS);
  if (!limit.allowed) {
    reply.header("retry-after", String(Math.max(1, Math.ceil(limit.resetMs / 1000))));
    throw new TooManyRequestsError(`Over ${limit.limit} client registrations or client metadata fetches an hour from this address.`);
  }
}

export function registerOAuthRoutes(app: FastifyInstance, services: Services): void {
  const { oauth, config } = services;
  app.register(async (scope) => {
    await scope.register(fastifyFormbody, { bodyLimit: 64 * 1024 });
    scope.addHook("onRequest", (_request, reply, done) => {
      reply.headers(CORS);
      done();
    });
    scope.setErrorHandler((error, request, reply: FastifyReply) => {
      const { status, error: answer } = oauthError(error, request);
      if (status >= 500) request.log.error({ err: error }, "OAuth endpoint failed");
      if (status === 401 && /^basic /i.test(request.headers.authorization ?? "")) reply.header("www-authenticate", 'Basic realm="quarry"');
      return reply.code(status).header("cache-control", "no-store").type("application/json; charset=utf-8").send(answer.toResponseObject());
    });
    const preflight = async (_request: FastifyRequest, reply: FastifyReply) => reply.code(204).send();

    // RFC 9728 §3: where the resource's authorization server is. One resource: the whole API.
    scope.get("/.well-known/oauth-protected-resource", async (request, reply) =>
      reply.header("cache-control", "public, max-age=300").send(oauth.resourceMetadata(publicBase(config, request))),
    );
    // RFC 8414 §3.
    scope.get("/.well-known/oauth-authorization-server", async (request, reply) =>
      reply.header("cache-control", "public, max-age=300").send(oauth.metadata(publicBase(config, request))),
    );

    scope.post("/oauth/register", async (request, reply) => {
      await countRegistration(services, request, reply);
      const client = await oauth.register(request.body);
      return reply.code(201).header("cache-control", "no-store").send(client);
    });

    scope.post("/oauth/token", async (request, reply) => {
      const tokens = await oauth.token(params(request.body), request.headers.authorization, publicBase(config, request), () =>
        countRegistration(services, request, reply),
      );
      return reply.header("cache-control", "no-store").header("pragma", "no-cache").send(tokens);
    });

    // RFC 7009 §2.2: 200 whether or not the token was known.
    scope.post("/oauth/revoke", async (request, reply) => {
      await oauth.revoke(params(request.body), request.headers.authorization);
      return reply.header("cache-control", "no-store").send({});
    });

    for (const url of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server", "/oauth/register", "/oauth/token", "/oauth/revoke"]) {
      scope.options(url, preflight);
    }
  });
}
