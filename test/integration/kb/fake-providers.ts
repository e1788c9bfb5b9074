/**
 * Embedding servers of the tests' own, speaking the OpenAI and Ollama HTTP APIs as those
 * services do (request and answer shapes, error bodies), on loopback only. The "model" is a
 * deterministic 8-dimension vector of letter counts, so similar texts are near.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export function vec(text: string): number[] {
  const v = new Array(8).fill(0);
  for (const ch of text.toLowerCase()) if (ch >= 'a' && ch <= 'z') v[(ch.charCodeAt(0) - 97) % 8] += 1;
  return v;
}

export interface Call {
  method: string;
  path: string;
  model?: string;
  inputs: number;
  auth: string | undefined;
}

export interface FakeProvider {
  server: Server;
  /** `http://host:port` as a base_url would name it. */
  url: string;
  port: number;
  calls: Call[];
  /** Answer the next n embedding calls with 429 (OpenAI) before answering. */
  failNext: number;
  /** path → [status, location]: redirects answered before anything else. */
  redirects: Map<string, [number, string]>;
  close(): Promise<void>;
}

type Handler = (p: FakeProvider, req: IncomingMessage, body: unknown, res: ServerResponse) => void;

async function readJson(req: IncomingMessage): Promise<unknown> {
  let s = '';
  for await (const c of req) s += c;
  if (s === '') return null;
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/**
 * Listen on `host:port` (port 0: any free one). A busy fixed port fails with a message saying
 * which port and why it is needed, never a skip.
 */
async function listen(handler: Handler, host: string, port: number, why: string): Promise<FakeProvider> {
  const server = createServer();
  const p: FakeProvider = {
    server,
    url: '',
    port: 0,
    calls: [],
    failNext: 0,
    redirects: new Map(),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  server.on('request', (req, res) => {
    void readJson(req).then((body) => {
      const path = req.url ?? '';
      const redirect = p.redirects.get(path);
      if (redirect) {
        res.writeHead(redirect[0], { location: redirect[1] });
        res.end();
        return;
      }
      handler(p, req, body, res);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        e.code === 'EADDRINUSE'
          ? new Error(
              `port ${host}:${port} is busy: ${why}. Stop whatever listens there (a real Ollama?) and run the test again`,
            )
          : e,
      ),
    );
    server.listen(port, host, resolve);
  });
  p.port = (server.address() as AddressInfo).port;
  p.url = `http://${host.includes(':') ? `[${host}]` : host}:${p.port}`;
  return p;
}

const inputsOf = (input: unknown): string[] | null =>
  typeof input === 'string'
    ? [input]
    : Array.isArray(input) && input.every((x) => typeof x === 'string')
      ? input
      : null;

/**
 * OpenAI `POST /v1/embeddings`: `{model, input: string | string[]}` → `{object: "list", data:
 * [{object: "embedding", index, embedding}], model, usage}` (data here in reverse order, which
 * the API allows: clients must sort by index); a wrong key is 401 with OpenAI's error object.
 */
export function openAiServer(opts: { host?: string; key?: string } = {}): Promise<FakeProvider> {
  return listen(
    (p, req, body, res) => {
      const b = body as { model?: string; input?: unknown } | null;
      const inputs = inputsOf(b?.input);
      p.calls.push({
        method: req.method ?? '',
        path: req.url ?? '',
        model: b?.model,
        inputs: inputs?.length ?? 0,
        auth: req.headers.authorization,
      });
      if (req.method !== 'POST' || !/\/v1\/embeddings$/.test(req.url ?? ''))
        return send(res, 404, {
          error: { message: `Unknown request URL: ${req.method} ${req.url}`, type: 'invalid_request_error' },
        });
      if (opts.key && req.headers.authorization !== `Bearer ${opts.key}`)
        return send(res, 401, {
          error: {
            message: 'Incorrect API key provided',
            type: 'invalid_request_error',
            code: 'invalid_api_key',
          },
        });
      if (!b?.model || !inputs)
        return send(res, 400, {
          error: { message: "'input' and 'model' are required", type: 'invalid_request_error' },
        });
      if (p.failNext > 0) {
        p.failNext--;
        return send(
          res,
          429,
          { error: { message: 'Rate limit reached', type: 'requests' } },
          { 'retry-after': '0' },
        );
      }
      send(res, 200, {
        object: 'list',
        data: inputs.map((t, index) => ({ object: 'embedding', index, embedding: vec(t) })).reverse(),
        model: b.model,
        usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
      });
    },
    opts.host ?? '127.0.0.1',
    0,
    'an OpenAI-compatible test server',
  );
}

/** Ollama's default address: `{"provider": "ollama"}` with no base_url calls it. */
export const OLLAMA_PORT = 11434;

/**
 * Ollama as it answers today: `POST /api/embed` `{model, input: string | string[]}` →
 * `{model, embeddings, total_duration, load_duration, prompt_eval_count}`; the older
 * `POST /api/embeddings` `{model, prompt}` → `{embedding}`; `GET /api/version`. A model not
 * pulled is 404 `{"error": "model \"x\" not found, try pulling it first"}`. Names match with
 * or without the `:latest` tag.
 */
export function ollamaServer(opts: { port?: number; models?: string[] } = {}): Promise<FakeProvider> {
  const models = new Set(
    (opts.models ?? ['nomic-embed-text']).map((m) => (m.includes(':') ? m : `${m}:latest`)),
  );
  const known = (m: unknown) => typeof m === 'string' && models.has(m.includes(':') ? m : `${m}:latest`);
  return listen(
    (p, req, body, res) => {
      const b = body as { model?: string; input?: unknown; prompt?: unknown } | null;
      const path = req.url ?? '';
      if (req.method === 'GET' && path === '/api/version') return send(res, 200, { version: '0.12.0' });
      if (req.method !== 'POST' || (path !== '/api/embed' && path !== '/api/embeddings')) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('404 page not found');
        return;
      }
      const inputs = path === '/api/embed' ? inputsOf(b?.input) : inputsOf(b?.prompt);
      p.calls.push({
        method: 'POST',
        path,
        model: b?.model,
        inputs: inputs?.length ?? 0,
        auth: req.headers.authorization,
      });
      if (!known(b?.model))
        return send(res, 404, { error: `model "${b?.model}" not found, try pulling it first` });
      if (!inputs) return send(res, 400, { error: 'invalid input type' });
      if (path === '/api/embeddings') return send(res, 200, { embedding: vec(inputs[0] ?? '') });
      send(res, 200, {
        model: b!.model,
        embeddings: inputs.map(vec),
        total_duration: 1_000_000,
        load_duration: 100_000,
        prompt_eval_count: inputs.length,
      });
    },
    '127.0.0.1',
    opts.port ?? OLLAMA_PORT,
    'Ollama\'s default address, which {"provider": "ollama"} calls without a base_url',
  );
}
