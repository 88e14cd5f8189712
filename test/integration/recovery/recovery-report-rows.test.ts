import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadOperatorConfig } from '../../../src/cli/config.ts';
import { createLogger } from '../../../src/lib/logger.ts';
import { createProviderClient } from '../../../src/platform/client/provider-client.ts';
import { withProviderTables } from '../../../src/platform/storage/tables.ts';
import { failureOf } from '../../../src/cli/exit-codes.ts';
import { runRecoverCli } from '../../../src/platform/recovery/recover-cli.ts';
import { runRecovery, type RecoveryOptions } from '../../../src/platform/recovery/run-recovery.ts';
import {
  sendJson,
  startScriptedServer,
  type ScriptedServer,
} from '../../support/scripted-server.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * Recovery row by row, against a scripted platform on 127.0.0.1 (real HTTP, the real client) and
 * a real Postgres: odd rows are recorded and skipped, duplicates are considered once, and large
 * reports are read over several runs. Before this, each of these aborted the run (nothing
 * recorded), resent one notification 400 times, or dropped the day.
 */
const D1 = '2026-11-21';
const D2 = '2026-11-22';
const MINUTE = 60_000;

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());
beforeEach(() =>
  database.query(
    `TRUNCATE webhook_deliveries, quarantined_deliveries, recovery_attempts, recovery_runs,
       payto_unmatched_receipts, recovery_row_problems, recovery_progress, leases CASCADE`,
  ),
);
const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

interface Read {
  kind: 'delivery' | 'payto';
  day: string;
  skip: number;
  take: number;
}

/** What the scripted platform answers. `undefined` from a report: HTTP 503 for that page. */
interface PlatformScript {
  /** The page's notifications, as values or as the JSON text of the array. */
  delivery?: (day: string, skip: number, take: number) => unknown[] | string | undefined;
  /** The page's `ndeFileDetails` rows (PayTo, interface form). */
  payto?: (day: string, skip: number, take: number) => string[] | undefined;
}

async function startPlatform(script: PlatformScript = {}) {
  const resends: string[] = [];
  const reads: Read[] = [];
  const server = await startScriptedServer((request, response) => {
    const url = new URL(request.path, 'http://platform');
    const skip = Number(url.searchParams.get('skip') ?? 0);
    const take = Number(url.searchParams.get('take') ?? 1000);
    const delivery = /^\/subscriptions\/v1\/report\/(\d{4}-\d\d-\d\d)$/.exec(url.pathname);
    if (delivery) {
      const day = delivery[1]!;
      reads.push({ kind: 'delivery', day, skip, take });
      const rows = script.delivery ? script.delivery(day, skip, take) : [];
      if (rows === undefined) return sendJson(response, 503, { status: 'Unavailable' });
      const text = typeof rows === 'string' ? rows : JSON.stringify(rows);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(`{"status":"Ok","notifications":${text}}`);
      return;
    }
    const payto = /^\/paytoreceivables\/v1\/report\/(\d{4})(\d\d)(\d\d)000000$/.exec(url.pathname);
    if (payto) {
      const day = `${payto[1]}-${payto[2]}-${payto[3]}`;
      reads.push({ kind: 'payto', day, skip, take });
      const rows = script.payto ? script.payto(day, skip, take) : [];
      if (rows === undefined) return sendJson(response, 503, { status: 'Unavailable' });
      return sendJson(response, 200, { status: 'Ok', ndeFileDetails: rows });
    }
    const resend = /^\/subscriptions\/v2\/resend\/(.+)$/.exec(url.pathname);
    if (resend && request.method === 'POST') {
      resends.push(decodeURIComponent(resend[1]!));
      return sendJson(response, 200, { status: 'Ok' });
    }
    sendJson(response, 404, { status: 'NotFound' });
  });
  servers.push(server);
  return { url: server.url, resends, reads };
}

type Platform = Awaited<ReturnType<typeof startPlatform>>;

function client(platform: Platform) {
  return createProviderClient({
    baseUrl: platform.url,
    authUrl: platform.url,
    apiKey: 'test-api-key',
    mAccount: undefined,
    timeoutMs: 5000,
    retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
  });
}

function recover(platform: Platform, extra: Partial<RecoveryOptions> = {}) {
  return runRecovery({
    db: withProviderTables(database.db),
    client: client(platform),
    logger: createLogger('silent'),
    days: [D1, D2],
    ...extra,
  });
}

const notification = (webhookId: string, status = 'Error') => ({
  webhookId,
  eventName: 'NPPReceivePayment',
  status,
});

/** A PayTo report row in the published column order (32 cells), `cells` overriding by index. */
function paytoRow(transactionId: string, cells: Record<number, string> = {}): string {
  const row = [transactionId, '77', '2026-11-22T09:00:00', '062-000', '12345678', 'Acme'];
  while (row.length < 32) row.push(row.length === 10 ? '1.00' : '');
  for (const [index, value] of Object.entries(cells)) row[Number(index)] = value;
  return row.join(',');
}

async function runs() {
  return database.query<{ ok: boolean; finished_at: Date | null; summary: Record<string, never> }>(
    'SELECT ok, finished_at, summary FROM recovery_runs ORDER BY id',
  );
}

describe('recovery reads reports row by row', () => {
  it('when a delivery report holds odd rows (12ab, beyond int64, NUL, no webhookId, not an object), then each is recorded and skipped and the rest of the run goes on', async () => {
    const odd = [
      '{"webhookId":"1","eventName":"NPPReceivePayment","status":"Error"}',
      '{"webhookId":"12ab","eventName":"NPPReceivePayment","status":"Error"}',
      '{"webhookId":9999999999999999999,"eventName":"NPPReceivePayment","status":"Error"}',
      '{"webhookId":"5","eventName":"NPP\\u0000ReceivePayment","status":"Error"}',
      '{"webhookId":"6\\u0000","eventName":"NPPReceivePayment","status":"Error"}',
      '{"eventName":"NPPReceivePayment","status":"Error"}',
      'null',
      '{"webhookId":"9223372036854775807","eventName":"NPPReceivePayment","status":"Error"}',
      '{"webhookId":"0003","eventName":"NPPReceivePayment","status":"Sent"}',
    ];
    const platform = await startPlatform({
      delivery: (day) => (day === D2 ? `[${odd.join(',')}]` : [notification('2')]),
    });

    const summary = await recover(platform);

    // Both days and both reports were read; every usable row was acted on.
    expect(platform.reads.map((r) => `${r.kind} ${r.day}`)).toEqual([
      `delivery ${D1}`,
      `payto ${D1}`,
      `delivery ${D2}`,
      `payto ${D2}`,
    ]);
    expect(platform.resends).toEqual(['2', '1', '9223372036854775807', '3']);
    expect(summary.notifications).toMatchObject({ seen: 10, resent: 4, unreadable: 6 });
    expect(summary.errors).toEqual([]);
    expect(summary.ok).toBe(false);
    const problems = await database.query<{
      row_number: number;
      reason: string;
      raw: string;
      report_kind: string;
      report_day: string;
    }>(
      `SELECT row_number, reason, raw, report_kind, report_day::text FROM recovery_row_problems ORDER BY row_number`,
    );
    expect(problems.map((p) => [p.row_number, p.reason])).toEqual([
      [2, 'webhookId is not 1-19 digits'],
      [3, 'webhookId is beyond the int64 range'],
      [4, 'a control character in eventName'],
      [5, 'a control character in webhookId'],
      [6, 'no webhookId'],
      [7, 'the row is not a JSON object'],
    ]);
    expect(problems.every((p) => p.report_kind === 'delivery' && p.report_day === D2)).toBe(true);
    expect(problems[0]!.raw).toContain('"webhookId":"12ab"');
    expect(problems[1]!.raw).toContain('9999999999999999999');
    expect(problems[2]!.raw).toContain('NPP\\u0000ReceivePayment');
    expect(problems.some((p) => p.raw.includes('\u0000'))).toBe(false);
    // The run is on record, finished, with its counts.
    const [run] = await runs();
    expect(run).toMatchObject({ ok: false, summary: { notifications: { unreadable: 6 } } });
    expect(run!.finished_at).not.toBeNull();
  });

  it('when a row holding a NUL is listed run after run, then it is never resent and its problem is one record seen each time', async () => {
    const platform = await startPlatform({
      delivery: (day) =>
        day === D2 ? '[{"webhookId":"5","eventName":"NPP\\u0000","status":"Error"}]' : [],
    });
    let now = Date.parse('2026-11-22T10:00:00Z');
    for (let run = 0; run < 4; run += 1) {
      await recover(platform, { now: () => new Date(now), payto: false });
      now += 11 * MINUTE;
    }
    expect(platform.resends).toEqual([]);
    expect(await runs()).toHaveLength(4);
    const problems = await database.query<{ times_seen: number }>(
      'SELECT times_seen FROM recovery_row_problems',
    );
    expect(problems).toEqual([{ times_seen: 4 }]);
  });

  it('when the PayTo report lists a Transaction ID again on a later page, or a cell holds a NUL, then those rows are recorded as problems and the run goes on', async () => {
    const platform = await startPlatform({
      delivery: (day) => (day === D2 ? [notification('1')] : []),
      payto: (day, skip) => {
        if (day !== D2) return [];
        if (skip === 0) return Array.from({ length: 1000 }, (_, i) => paytoRow(`T${i}`));
        return [paytoRow('T0'), paytoRow('T1000'), paytoRow('T1001', { 12: 'Bad\u0000Name' })];
      },
    });
    const summary = await recover(platform);
    expect(summary.errors).toEqual([]);
    expect(summary.payto).toEqual({
      receipts: 1003,
      matched: 0,
      unmatched: 1001,
      unreadable: 2,
    });
    expect(platform.resends).toEqual(['1']);
    expect(await database.count('payto_unmatched_receipts')).toBe(1001);
    const problems = await database.query<{ row_number: number; reason: string }>(
      `SELECT row_number, reason FROM recovery_row_problems WHERE report_kind = 'payto' ORDER BY row_number`,
    );
    expect(problems).toEqual([
      { row_number: 1001, reason: 'repeats the Transaction ID of row 1' },
      { row_number: 1003, reason: 'a control character in RemitterName' },
    ]);
    expect(summary.needsAttention).toBe(true);
    expect(await runs()).toHaveLength(1);
  });

  it('when one report fails with an unexpected (non-platform) error, then it is counted, the other reports go on and the run is recorded as failed', async () => {
    const platform = await startPlatform({
      delivery: (day) => [notification(day === D1 ? '2' : '1')],
      payto: (day) => (day === D1 ? [paytoRow('P1')] : []),
    });
    await database.query('ALTER TABLE payto_unmatched_receipts RENAME TO payto_unmatched_moved');
    const summary = await recover(platform).finally(() =>
      database.query('ALTER TABLE payto_unmatched_moved RENAME TO payto_unmatched_receipts'),
    );
    expect(summary.errors).toEqual([
      expect.stringMatching(
        /^2026-11-21 PayTo report: unexpected error: .*payto_unmatched_receipts/,
      ),
    ]);
    // The next day's delivery report went ahead after the failure.
    expect(platform.resends).toEqual(['2', '1']);
    const [run] = await runs();
    expect(run).toMatchObject({ ok: false, summary: { errors: summary.errors } });
    expect(run!.finished_at).not.toBeNull();
  });
});

describe('duplicates and the resend limit within a run', () => {
  it('when a report lists one id 400 times (and the other day too), then one run resends it once, an immediate rerun not at all, and never more than 3 times in all', async () => {
    const platform = await startPlatform({
      delivery: (day) =>
        day === D2 ? Array.from({ length: 400 }, () => notification('42')) : [notification('42')],
    });
    let now = Date.parse('2026-11-22T10:00:00Z');
    const at = () => ({ now: () => new Date(now), payto: false });

    const first = await recover(platform, at());
    expect(platform.resends).toEqual(['42']);
    expect(first.notifications).toMatchObject({ seen: 401, resent: 1, duplicates: 400 });

    const again = await recover(platform, at());
    expect(platform.resends).toHaveLength(1);
    expect(again.notifications).toMatchObject({ resent: 0, waiting: 1 });

    const perRun: number[] = [];
    for (let run = 0; run < 8; run += 1) {
      now += 11 * MINUTE;
      const before = platform.resends.length;
      await recover(platform, at());
      perRun.push(platform.resends.length - before);
    }
    expect(perRun).toEqual([1, 1, 0, 0, 0, 0, 0, 0]);
    expect(platform.resends).toHaveLength(3);
    expect(await database.count('recovery_attempts')).toBe(3);
  });
});

describe('large reports', () => {
  it('when a day has 101 pages of 1000, then the first run reads 100 and acts on them, and the next run goes on from page 101 instead of dropping the day', async () => {
    const rows = 100_500;
    const platform = await startPlatform({
      delivery: (day, skip, take) =>
        day !== D2
          ? []
          : Array.from({ length: Math.max(0, Math.min(take, rows - skip)) }, (_, i) => {
              const id = skip + i + 1;
              return notification(String(id), id === 5 || id === 100_250 ? 'Error' : 'Pending');
            }),
    });
    const at = () => ({ payto: false });

    const first = await recover(platform, at());
    expect(platform.reads.filter((r) => r.day === D2)).toHaveLength(100);
    expect(platform.resends).toEqual(['5']);
    expect(first.errors).toEqual([]);
    expect(first.reports?.find((r) => r.day === D2)).toMatchObject({
      fromPage: 1,
      pagesRead: 100,
      rowsRead: 100_000,
      complete: false,
      resumesAtPage: 101,
    });
    expect(first.needsAttention).toBe(true);
    expect(
      await database.query(
        `SELECT report_kind, next_skip FROM recovery_progress WHERE report_day = '${D2}'`,
      ),
    ).toEqual([{ report_kind: 'delivery', next_skip: 100_000 }]);

    platform.reads.length = 0;
    const second = await recover(platform, at());
    expect(platform.reads.filter((r) => r.day === D2)).toEqual([
      { kind: 'delivery', day: D2, skip: 100_000, take: 1000 },
    ]);
    expect(platform.resends).toEqual(['5', '100250']);
    expect(second.reports?.find((r) => r.day === D2)).toMatchObject({
      fromPage: 101,
      pagesRead: 1,
      complete: true,
    });
    expect(second.ok).toBe(true);
    expect(await database.count('recovery_progress')).toBe(0);

    // A pass read to its end: the next run starts over from page 1.
    platform.reads.length = 0;
    await recover(platform, at());
    expect(platform.reads.find((r) => r.day === D2)).toMatchObject({ skip: 0 });
    expect(platform.resends).toHaveLength(2);
  }, 60_000);

  it('when a page cannot be read, then the pages before it are kept and the next run goes on from that page', async () => {
    let failPage3 = true;
    const platform = await startPlatform({
      delivery: (day, skip, take) => {
        if (day !== D2) return [];
        if (skip === 20 && failPage3) return undefined;
        return Array.from({ length: Math.max(0, Math.min(take, 35 - skip)) }, (_, i) =>
          notification(String(skip + i + 1)),
        );
      },
    });
    const options = { payto: false, pageSize: 10 };
    const first = await recover(platform, options);
    expect(platform.resends).toHaveLength(20);
    expect(first.errors).toEqual([expect.stringContaining('2026-11-22 delivery report')]);
    expect(first.reports?.find((r) => r.day === D2)).toMatchObject({
      pagesRead: 2,
      complete: false,
    });

    failPage3 = false;
    platform.reads.length = 0;
    const second = await recover(platform, options);
    expect(platform.reads.filter((r) => r.day === D2).map((r) => r.skip)).toEqual([20, 30]);
    expect(platform.resends).toHaveLength(35);
    expect(new Set(platform.resends).size).toBe(35);
    expect(second.ok).toBe(true);
  });
});

describe('npm run recover: a range of pages, progress on stderr', () => {
  async function recoverCli(platform: Platform, argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    // As main.ts runs it: what it throws (bad usage, bad configuration) goes through the policy.
    const code = await runRecoverCli(
      {
        argv,
        env: {
          DATABASE_URL: database.url,
          PROVIDER_BASE_URL: platform.url,
          PROVIDER_AUTH_URL: platform.url,
          PROVIDER_API_KEY: 'test-api-key',
          SIGNING_KEY_ALLOW_HTTP: 'true',
          LOG_LEVEL: 'silent',
        },
        out: (text) => out.push(text),
        err: (text) => err.push(text),
        projectDir: process.cwd(),
      },
      loadOperatorConfig,
    ).catch((error: unknown) => {
      const failure = failureOf(error, 'recovery failed');
      err.push(failure.text);
      return failure.code;
    });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('when --from-page and --pages are given, then exactly those pages are read, each shown on stderr, and the stored position is left alone; without, a run goes on where the last stopped', async () => {
    const platform = await startPlatform({
      delivery: (day, skip, take) =>
        day !== D2
          ? []
          : Array.from({ length: Math.max(0, Math.min(take, 2500 - skip)) }, (_, i) =>
              notification(String(skip + i + 1), 'Pending'),
            ),
    });
    const base = ['--date', D2, '--skip-payto'];

    const range = await recoverCli(platform, [...base, '--from-page', '2', '--pages', '1']);
    expect(range.code, range.err).toBe(0);
    expect(platform.reads).toEqual([{ kind: 'delivery', day: D2, skip: 1000, take: 1000 }]);
    expect(range.err).toContain(`${D2}: delivery report page 2 (rows 1001-2000): `);
    expect(JSON.parse(range.out).reports).toEqual([
      { day: D2, kind: 'delivery', fromPage: 2, pagesRead: 1, rowsRead: 1000, complete: false },
    ]);
    expect(await database.count('recovery_progress')).toBe(0);

    platform.reads.length = 0;
    const partial = await recoverCli(platform, [...base, '--pages', '2']);
    expect(partial.code).toBe(1);
    expect(platform.reads.map((r) => r.skip)).toEqual([0, 1000]);
    expect(partial.err).toContain('the next run goes on from page 3');

    platform.reads.length = 0;
    const rest = await recoverCli(platform, [...base, '--pages', '2']);
    expect(rest.code, rest.err).toBe(0);
    expect(platform.reads.map((r) => r.skip)).toEqual([2000]);
    expect(rest.err).toContain(`${D2}: delivery report page 3 (rows 2001-2500, the last)`);
  });

  it('when --pages or --from-page is not a whole number from 1, then it exits 2 with the usage; --help names both', async () => {
    const platform = await startPlatform();
    const bad = await recoverCli(platform, ['--pages', '0']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(
      /^--pages must be a whole number from 1 to 100000 \(got 0\)\n\nusage: /,
    );
    expect((await recoverCli(platform, ['--from-page', 'x'])).code).toBe(2);
    const help = await recoverCli(platform, ['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toContain('--from-page N');
    expect(help.out).toContain('--pages M');
    expect(platform.reads).toEqual([]);
  });
});
