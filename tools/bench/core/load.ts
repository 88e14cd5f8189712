import autocannon from 'autocannon';
import type { DeliveryPool } from './deliveries.ts';
import type { Pacing } from './options.ts';
import { createPacer, drainAt, interceptSends, type Pacer } from './client-hooks.ts';
import type { PostgresPids } from './postgres.ts';
import { startCpuMeter, type CpuUse } from './proc-stats.ts';

/**
 * One autocannon run against one server, each request with its own pre-signed delivery (body
 * and headers). The run ends at `amount` requests or, when given, at `durationSeconds`; either
 * way every request sent is answered before it ends, so the 200s can be compared exactly with
 * the rows stored.
 */

export interface LoadPlan {
  url: string;
  pid: number;
  /** Postgres processes whose CPU is counted as this server's database work. */
  postgresPids?: PostgresPids;
  pool: DeliveryPool;
  /** Servers that deduplicate must never see a delivery twice; the echo server may. */
  reuseDeliveries: boolean;
  /** Most requests to send. */
  amount: number;
  /** Stop sending after this long (closing connections only between requests). */
  durationSeconds?: number;
  connections: number;
  /** Offered deliveries per second; unset: as fast as the server answers. */
  rate?: { perSecond: number; pacing: Pacing };
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
  /** Deliveries sent a second time because the pool ran out (a stored-once server's 200 then stores nothing). */
  reusedDeliveries: number;
  latencyMs: { p50: number; p99: number; max: number };
  /** CPU seconds over the elapsed time. */
  cpu: CpuUse;
  /**
   * First request and last response on the machine's monotonic clock, microseconds: the same
   * clock a server's CPU profile (`--cpu-prof`) is timed by, so the phase can be cut out of it.
   */
  monotonicUs: { start: number; end: number };
}

export async function runLoad(plan: LoadPlan): Promise<LoadResult> {
  let handedOut = 0;
  const latencies: number[] = [];
  // Read when the last connection closes: autocannon reports up to a second later.
  let cpu: CpuUse | undefined;
  let closedConnections = 0;
  const deadline =
    plan.durationSeconds === undefined
      ? undefined
      : performance.now() + plan.durationSeconds * 1000;
  const pacer: Pacer | undefined =
    plan.rate?.pacing === 'smooth'
      ? createPacer({ rate: plan.rate.perSecond, connections: plan.connections })
      : undefined;

  const options: autocannon.Options = {
    url: plan.url,
    connections: plan.connections,
    amount: plan.amount,
    timeout: 10,
    // A server that died or refuses everything: stop early, the errors already fail the run.
    bailout: 500,
    requests: [
      {
        method: 'POST',
        path: '/webhooks/NPPReceivePayment',
        setupRequest: (request) => {
          const delivery = plan.pool.at(handedOut % plan.pool.size);
          handedOut += 1;
          return {
            ...request,
            body: delivery.body,
            headers: { ...request.headers, ...delivery.headers },
          };
        },
      },
    ],
    // Latencies are recorded below, unbucketed. autocannon's own coordinated-omission correction
    // assumes requests 1 ms apart (ceil(1 / per-connection rate)), which inflates the sample count.
    ...(plan.rate?.pacing === 'autocannon' && {
      overallRate: plan.rate.perSecond,
      ignoreCoordinatedOmission: true,
    }),
    setupClient: (client) => {
      pacer?.setupClient(client);
      if (deadline !== undefined) interceptSends(client, drainAt(deadline));
      client.once('done', () => {
        closedConnections += 1;
        if (closedConnections === plan.connections) cpu = meter.read();
      });
    },
  };

  const meter = startCpuMeter(plan.pid, plan.postgresPids ?? { backends: [], background: [] });
  const startedAt = performance.now();
  const startedAtUs = Number(process.hrtime.bigint() / 1000n);
  let lastResponseAt = startedAt;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(options, (error: unknown, done: autocannon.Result) =>
      error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(done),
    );
    instance.on('response', (client, _status, _bytes, responseTime) => {
      lastResponseAt = performance.now();
      const heldBack = pacer ? pacer.takeHeldBackMs(client) : 0;
      latencies.push(responseTime + heldBack);
    });
  });
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
    reusedDeliveries: plan.reuseDeliveries ? 0 : Math.max(0, handedOut - plan.pool.size),
    latencyMs: {
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: percentile(sorted, 100),
    },
    cpu: cpu ?? meter.read(),
    monotonicUs: { start: startedAtUs, end: startedAtUs + elapsedSeconds * 1e6 },
  };
}

/** Nearest-rank percentile of values sorted ascending; 0 for no values. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? 0;
}
