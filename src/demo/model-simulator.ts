/**
 * A simulated model server on loopback for Sharpen tests and the offline demo. It speaks the three
 * reviewer wire formats (OpenAI-compatible chat completions, Anthropic Messages, Gemini
 * generateContent), checks that each carries its key header, records every request (keys
 * removed), and can be told per model to fail (500), answer empty, hang or answer slowly. Every
 * answer starts with "[simulated reviewer <model>]": nothing here is a real model.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type SimulatedKind = "openai" | "anthropic" | "gemini";
export type Behaviour = "ok" | "fail" | "empty" | "hang" | { delayMs: number };

export interface SimulatedRequest {
  kind: SimulatedKind;
  model: string;
  path: string;
  /** Request headers without the key headers. */
  headers: Record<string, string>;
  /** Which header carried the key (its value is not kept). */
  keyHeader: string | null;
  body: unknown;
  /** All prompt text of the request (system + user), for content assertions. */
  text: string;
  /** The critique prompt carries a <draft> section; the blind attempt does not. */
  step: "blind" | "critique";
}

export interface ModelSimulator {
  url: string;
  requests: SimulatedRequest[];
  setBehaviour(model: string, behaviour: Behaviour): void;
  /** Forget recorded requests and behaviours. */
  reset(): void;
  close(): Promise<void>;
}

const KEY_HEADERS: Record<SimulatedKind, string> = {
  openai: "authorization",
  anthropic: "x-api-key",
  gemini: "x-goog-api-key",
};

type Json = Record<string, unknown>;

function obj(value: unknown): Json {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

/** Every string found under `content`, `text` or `system` keys: the prompt text of any format. */
function promptText(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(promptText).join("\n");
  const o = obj(value);
  return ["system", "systemInstruction", "messages", "contents", "content", "parts", "text"]
    .filter((k) => k in o)
    .map((k) => promptText(o[k]))
    .join("\n");
}

function section(text: string, tag: string): string {
  return new RegExp(`<${tag}>\\n([\\s\\S]*?)\\n</${tag}>`).exec(text)?.[1] ?? "";
}

function answerText(model: string, step: "blind" | "critique", text: string): string {
  const label = `[simulated reviewer ${model}]`;
  const task = section(text, "task").slice(0, 120);
  if (step === "blind") {
    return `${label} Blind attempt at "${task}": a simulated answer; no real model was called.`;
  }
  const words = section(text, "draft").split(/\s+/).filter(Boolean).length;
  return (
    `${label} Critique (simulated; no real model was called). The draft has ${words} words. ` +
    "Errors: none found by this simulator. Gaps: compare with the blind attempt. Priorities: verify the key facts."
  );
}

function reply(kind: SimulatedKind, model: string, text: string): Json {
  if (kind === "openai") {
    return {
      id: "chatcmpl-sim",
      object: "chat.completion",
      model,
      choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
    };
  }
  if (kind === "anthropic") {
    const content = text ? [{ type: "text", text }] : [];
    return { id: "msg_sim", type: "message", role: "assistant", model, content, stop_reason: "end_turn" };
  }
  return {
    candidates: [{ index: 0, content: { role: "model", parts: [{ text }] }, finishReason: "STOP" }],
    modelVersion: model,
  };
}

function route(method: string, path: string): { kind: SimulatedKind; model?: string } | null {
  if (method !== "POST") return null;
  if (path.endsWith("/chat/completions")) return { kind: "openai" };
  if (path.endsWith("/v1/messages")) return { kind: "anthropic" };
  const gemini = /\/v1beta\/models\/([^/:]+):generateContent$/.exec(path);
  if (gemini) return { kind: "gemini", model: decodeURIComponent(gemini[1]!) };
  return null;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return;
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

export async function startModelSimulator(): Promise<ModelSimulator> {
  const requests: SimulatedRequest[] = [];
  const behaviours = new Map<string, Behaviour>();
  const pending = new Set<ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();

  function handle(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const path = (req.url ?? "").split("?")[0] ?? "";
    const target = route(req.method ?? "", path);
    if (!target) {
      send(res, 404, { error: { message: `simulator: no route ${req.method} ${path}` } });
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      send(res, 400, { error: { message: "simulator: body is not JSON" } });
      return;
    }
    const { kind } = target;
    const model = target.model ?? String(obj(body).model ?? "");
    const keyName = KEY_HEADERS[kind];
    const keyValue = req.headers[keyName];
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (!Object.values(KEY_HEADERS).includes(k)) headers[k] = String(v);
    const text = promptText(body);
    const step = text.includes("<draft>") ? "critique" : "blind";
    const hasKey =
      typeof keyValue === "string" &&
      (kind === "openai" ? /^Bearer \S+/.test(keyValue) : keyValue.length > 0);
    requests.push({ kind, model, path, headers, keyHeader: hasKey ? keyName : null, body, text, step });

    if (!hasKey) {
      send(res, 401, { error: { message: `simulator: missing ${keyName}` } });

      return;
    }
    if (kind === "anthropic" && !req.headers["anthropic-version"]) {
      send(res, 400, {
        type: "error",
        error: { type: "invalid_request_error", message: "anthropic-version missing" },
      });
      return;
    }
    const behaviour = behaviours.get(model) ?? "ok";
    if (behaviour === "hang") {
      pending.add(res);
      res.on("close", () => pending.delete(res));
      return;
    }
    if (behaviour === "fail") {
      send(res, 500, { error: { message: `simulator: ${model} told to fail` } });
      return;
    }
    const answer = reply(kind, model, behaviour === "empty" ? "" : answerText(model, step, text));
    if (behaviour === "ok" || behaviour === "empty") {
      send(res, 200, answer);
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      send(res, 200, answer);
    }, behaviour.delayMs);
    timers.add(timer);
    res.on("close", () => {
      clearTimeout(timer);
      timers.delete(timer);
    });
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handle(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    requests,
    setBehaviour: (model, behaviour) => behaviours.set(model, behaviour),
    reset() {
      requests.length = 0;
      behaviours.clear();
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      for (const res of pending) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Environment for a Quarry that reviews with the simulator (the offline demo): one simulated
 * reviewer per wire format, families a–c, models named so the review label says what they are.
 */
export function simulatedSharpenEnv(url: string): Record<string, string> {
  const tiers = ["sharpen", "plus", "ultra", "ultra2x"];
  const reviewers = [
    {
      family: "family_a",
      kind: "openai",
      model: "simulated-family_a-openai",
      baseUrl: `${url}/v1`,
      keyVar: "SHARPEN_SIM_KEY",
      tiers,
    },
    {
      family: "family_b",
      kind: "anthropic",
      model: "simulated-family_b-anthropic",
      baseUrl: url,
      keyVar: "SHARPEN_SIM_KEY",
      tiers,
    },
    {
      family: "family_c",
      kind: "gemini",
      model: "simulated-family_c-gemini",
      baseUrl: url,
      keyVar: "SHARPEN_SIM_KEY",
      tiers,
    },
  ];
  return { SHARPEN_REVIEWERS: JSON.stringify(reviewers), SHARPEN_SIM_KEY: "simulated-key-not-secret" };
}
