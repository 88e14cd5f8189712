import autocannon from 'autocannon';
import { readCpuSeconds } from '../common/proc-stats.ts';
import type { DeliveryPool } from './deliveries.ts';

/**
 * One autocannon run against one server, each request with its own pre-signed delivery (body and
 * headers). It sends a fixed `amount` of requests: autocannon closes each connection only after
 * its last answer, so every request sent is answered before the run ends and the 200s can be
 * compared exactly with the rows stored. (With autocannon's `duration`, the requests in flight
 * at the end would be dropped, and some of them stored after the count.)
 */

export interface LoadPlan {
  url: string;
  /** The server process whose CPU time is measured. */
  pid: number;
  pool: DeliveryPool;
  /** Pool index of the first delivery sent (default 0). */
  first?: number;
  /** Servers that deduplicate must never see a delivery twice; the echo server may. */
  reuseDeliveries: boolean;
  /** Requests to send. */
  amount: number;
  connections: number;
}

export interface LoadResult {
  /** First request to last response, seconds. */
  elapsedSeconds: number;
  sent: number;
  ok: number;
  /** 2xx answers per second over the elapsed time. */
  okPerSecond: number;
  statusCounts: Record<string, number>;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Deliveries sent a second time because the pool ran out (a storing server then writes nothing). */
  reusedDeliveries: number;
  /** Every response of the run, unbucketed. */
  latencyMs: { p50: number; p99: number; max: number };
  /** User + system CPU seconds of the server process over the run (/proc/<pid>/stat). */
  serverCpuSeconds: number;
}

export async function runLoad(plan: LoadPlan): Promise<LoadResult> {
  const first = plan.first ?? 0;
  let handedOut = 0;
  const latencies: number[] = [];
  // Read when the last connection closes: autocannon calls back up to a second later.
  let cpuAfter: number | undefined;
  let closedConnections = 0;
  const options: autocannon.Options = {
    url: plan.url,
    connections: plan.connections,
    amount: plan.amount,
    timeout: 10,
    // A server that died or refuses everything: stop early, the errors are reported.
    bailout: 500,
    requests: [
      {
        method: 'POST',
        path: '/webhooks/NPPReceivePayment',
        setupRequest: (request) => {
          const delivery = plan.pool.at((first + handedOut) % plan.pool.size);
          handedOut += 1;
          return {
            ...request,
            body: delivery.body,
            headers: { ...request.headers, ...delivery.headers },
          };
        },
      },
    ],
    setupClient: (client) => {
      client.once('done', () => {
        closedConnections += 1;
        if (closedConnections === plan.connections) cpuAfter = readCpuSeconds(plan.pid);
      });
    },
  };

  const cpuBefore = readCpuSeconds(plan.pid);
  const startedAt = performance.now();
  let lastResponseAt = startedAt;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(options, (error: unknown, done: autocannon.Result) =>
      error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(done),
    );
    instance.on('response', (_client, _status, _bytes, responseTime) => {
      lastResponseAt = performance.now();
      latencies.push(responseTime);
    });
  });
  const serverCpuSeconds = (cpuAfter ?? readCpuSeconds(plan.pid)) - cpuBefore;
  const elapsedSeconds = (lastResponseAt - startedAt) / 1000;

  const sorted = Float64Array.from(latencies).sort();
  const ok = result['2xx'];
  return {
    elapsedSeconds,
    sent: handedOut,
    ok,
    okPerSecond: elapsedSeconds > 0 ? ok / elapsedSeconds : 0,
    statusCounts: Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count ?? 0]),
    ),
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    reusedDeliveries: plan.reuseDeliveries ? 0 : Math.max(0, first + handedOut - plan.pool.size),
    latencyMs: {
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: percentile(sorted, 100),
    },
    serverCpuSeconds,
  };
}

/** Nearest-rank percentile of values sorted ascending; 0 for no values. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? 0;
}
