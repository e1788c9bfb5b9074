/**
 * Official SDK clients for each way in: the v1 client for the 2025 era (Streamable HTTP
 * sessions, legacy SSE, stdio) and the v2 client pinned to 2026-07-28 (stateless HTTP).
 */
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttp,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export type HttpKind = 'streamable' | 'sse' | 'modern';
export const HTTP_KINDS: HttpKind[] = ['streamable', 'sse', 'modern'];

/** The calls the tests make; both SDK generations offer them with the same shapes. */
export interface TestClient {
  listTools(): Promise<{ tools: any[] }>;
  callTool(
    params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> },
    resultSchema?: undefined,
    options?: any,
  ): Promise<any>;
  listResources(): Promise<{ resources: any[] }>;
  listResourceTemplates(): Promise<{ resourceTemplates: any[] }>;
  readResource(params: { uri: string }): Promise<{ contents: any[] }>;
  listPrompts(): Promise<{ prompts: any[] }>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<any>;
  complete(params: any): Promise<{ completion: { values: string[] } }>;
  getServerVersion(): { name: string; version: string } | undefined;
  getInstructions(): string | undefined;
  close(): Promise<void>;
}

export interface Connected {
  client: TestClient;
  /** Ends the session the way a polite client does (DELETE for Streamable HTTP). */
  terminate(): Promise<void>;
}

export async function connect(
  kind: HttpKind,
  baseUrl: string,
  headers?: Record<string, string>,
): Promise<Connected> {
  const requestInit = headers ? { headers } : undefined;
  if (kind === 'modern') {
    const client = new ModernClient(
      { name: 'tributary-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new ModernHttp(new URL(`${baseUrl}/mcp/streamable`), { requestInit }));
    // v2 takes call options second (v1 third, after a result schema).
    const callTool: TestClient['callTool'] = (params, _schema, options) =>
      client.callTool(params as any, options);
    const wrapped = new Proxy(client, {
      get: (target, prop) => {
        if (prop === 'callTool') return callTool;
        const v = Reflect.get(target, prop, target);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    }) as unknown as TestClient;
    return { client: wrapped, terminate: () => client.close() };
  }
  const client = new Client({ name: 'tributary-test', version: '1.0.0' });
  if (kind === 'sse') {
    const transport = new SSEClientTransport(new URL(`${baseUrl}/mcp/sse`), {
      requestInit,
      eventSourceInit: headers
        ? { fetch: (u, init) => fetch(u, { ...init, headers: { ...init?.headers, ...headers } }) }
        : undefined,
    });
    await client.connect(transport);
    return { client: client as unknown as TestClient, terminate: () => client.close() };
  }
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp/streamable`), { requestInit });
  await client.connect(transport);
  return {
    client: client as unknown as TestClient,
    terminate: async () => {
      await transport.terminateSession();
      await client.close();
    },
  };
}

/** The SPEC §2 result a `query` call returned, checking the text copy matches it. */
export function resultOf(call: any): any {
  const result = call.structuredContent?.result;
  if (!result) throw new Error(`no structuredContent.result in ${JSON.stringify(call)}`);
  const text = call.content?.find((c: any) => c.type === 'text')?.text;
  if (text !== JSON.stringify(result))
    throw new Error(`text content differs from structuredContent: ${text}`);
  return result;
}

export function jsonContents(read: { contents: any[] }): unknown {
  if (read.contents.length !== 1) throw new Error(`expected one content item, got ${read.contents.length}`);
  const c = read.contents[0];
  if (c.mimeType !== 'application/json') throw new Error(`mimeType ${c.mimeType}`);
  return JSON.parse(c.text);
}
