/** A fixed number of calls at a fixed concurrency: throughput, latency percentiles, CPU per call. */

import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { percentile, round } from './lib.js';
import { cpuMs } from './mcp-procs.js';

/** One call; `i` picks the call's parameters so every target sees the same sequence. */
export type Call = (worker: number, i: number) => Promise<unknown>;

export interface LoadResult {
  calls: number;
  calls_per_s: number;
  p50_ms: number;
  p99_ms: number;
  /** Server process CPU (user + system, all threads) per call; absent for the driver. */
  server_cpu_ms_per_call?: number;
  /** This bench process's CPU per call: the MCP client, or the driver itself. */
  client_cpu_ms_per_call: number;
}

async function drive(call: Call, concurrency: number, calls: number, offset: number, lat?: number[]) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      while (next < calls) {
        const i = next++;
        const t0 = performance.now();
        await call(w, offset + i);
        lat?.push(performance.now() - t0);
      }
    }),
  );
}

/**
 * Untimed rounds of `perRound` calls (JIT warm-up, pools filled) until, after `minRounds`,
 * a round's CPU per call (the server's, else this process's) is within `tolerance` of the
 * round before, at most `maxRounds`. A server's JIT can take thousands of calls to settle
 * (measured here: a point lookup over MCP costs ~1.5 ms per call over its first 1,000 calls
 * and ~0.6 ms from about 5,000 on), and a fixed warm-up would measure some servers in the
 * middle of compiling. Returns the calls made.
 */
export async function warmUpUntilSteady(
  call: Call,
  o: {
    concurrency: number;
    perRound: number;
    serverPid?: number;
    minRounds?: number;
    maxRounds?: number;
    tolerance?: number;
  },
): Promise<number> {
  const cpu = () => {
    if (o.serverPid !== undefined) return cpuMs(o.serverPid);
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const minRounds = o.minRounds ?? 5;
  const maxRounds = o.maxRounds ?? 12;
  const tolerance = o.tolerance ?? 0.1;
  let last = Number.POSITIVE_INFINITY;
  for (let r = 0; r < maxRounds; r++) {
    const c0 = cpu();
    await drive(call, o.concurrency, o.perRound, 2_000_000 + r * o.perRound);
    const perCall = (cpu() - c0) / o.perRound;
    if (r + 1 >= minRounds && Math.abs(perCall - last) <= tolerance * last) return (r + 1) * o.perRound;
    last = perCall;
  }
  return maxRounds * o.perRound;
}

/** One target of an interleaved load: its call, and the server process to charge CPU to. */
export interface LoadTarget {
  call: Call;
  serverPid?: number;
}

/**
 * For each target, `calls` calls after `warmup` untimed ones, measured in `rounds` equal
 * rounds that take turns between the targets (the first target of each turn rotates): a
 * disturbance on a shared machine then falls on every target alike instead of on whichever
 * ran at the time. Calls/s and CPU per call are each target's median over its rounds,
 * latency percentiles are over all its calls.
 */
export async function runInterleaved(
  targets: LoadTarget[],
  o: { concurrency: number; calls: number; warmup: number; rounds?: number },
): Promise<LoadResult[]> {
  for (const t of targets) await drive(t.call, o.concurrency, o.warmup, 1_000_000);
  const rounds = Math.max(1, o.rounds ?? 3);
  const perRound = Math.ceil(o.calls / rounds);
  const acc = targets.map(() => ({
    lat: [] as number[],
    rates: [] as number[],
    serverCpu: [] as number[],
    clientCpu: [] as number[],
  }));
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < targets.length; k++) {
      const i = (k + r) % targets.length;
      const t = targets[i];
      const a = acc[i];
      const cpu0 = t.serverPid === undefined ? 0 : cpuMs(t.serverPid);
      const own0 = process.cpuUsage();
      const t0 = performance.now();
      await drive(t.call, o.concurrency, perRound, r * perRound, a.lat);
      const wall = performance.now() - t0;
      const own = process.cpuUsage(own0);
      if (t.serverPid !== undefined) a.serverCpu.push((cpuMs(t.serverPid) - cpu0) / perRound);
      a.rates.push((perRound * 1000) / wall);
      a.clientCpu.push((own.user + own.system) / 1000 / perRound);
    }
  }
  return targets.map((t, i) => {
    const a = acc[i];
    return {
      calls: perRound * rounds,
      calls_per_s: round(percentile(a.rates, 50), 0),
      p50_ms: round(percentile(a.lat, 50), 3),
      p99_ms: round(percentile(a.lat, 99), 3),
      ...(t.serverPid === undefined ? {} : { server_cpu_ms_per_call: round(percentile(a.serverCpu, 50), 3) }),
      client_cpu_ms_per_call: round(percentile(a.clientCpu, 50), 3),
    };
  });
}

/** `runInterleaved` for one target. */
export async function runLoad(
  call: Call,
  o: { concurrency: number; calls: number; warmup: number; serverPid?: number; rounds?: number },
): Promise<LoadResult> {
  return (await runInterleaved([{ call, serverPid: o.serverPid }], o))[0];
}

let quieted = false;

/**
 * The SDK client passes one transport-wide AbortSignal to every fetch, and undici drops
 * each fetch's 'abort' listener only when the request object is garbage-collected, so
 * thousands of calls between two GCs trip Node's listener-leak warning (once per call,
 * hundreds of lines). Checked: after a GC the count is back to a handful. Only that
 * warning is dropped; every other warning is printed as Node would.
 */
function quietAbortListenerWarning(): void {
  if (quieted) return;
  quieted = true;
  process.removeAllListeners('warning');
  process.on('warning', (w) => {
    if (w.name === 'MaxListenersExceededWarning' && w.message.includes('[AbortSignal]')) return;
    process.stderr.write(`${w.stack ?? `${w.name}: ${w.message}`}\n`);
  });
}

/**
 * One official-SDK client session per concurrent worker. `tools/list` is not called, so the
 * client does not validate `structuredContent` against the output schema: the same client
 * work for a server with an output schema (Tributary) and one without (DBHub).
 */
export async function mcpClients(url: string, n: number): Promise<Client[]> {
  quietAbortListenerWarning();
  return Promise.all(
    Array.from({ length: n }, async () => {
      const c = new Client({ name: 'tributary-bench', version: '0.1.0' });
      await c.connect(new StreamableHTTPClientTransport(new URL(url)));
      return c;
    }),
  );
}

export async function closeClients(clients: Client[]): Promise<void> {
  await Promise.allSettled(
    clients.map(async (c) => {
      const t = c.transport as StreamableHTTPClientTransport | undefined;
      // End the session on the server too (a stateless server answers 405, which is fine).
      await t?.terminateSession().catch(() => {});
      await c.close();
    }),
  );
}

/** Calls a tool and fails loudly on a protocol or tool error, so a broken target cannot look fast. */
export async function callTool(c: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const r: any = await c.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content).slice(0, 300)}`);
  return r;
}
