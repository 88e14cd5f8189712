import { readFileSync, readdirSync } from 'node:fs';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { DeliveryOutcome } from '../../src/delivery/receive-delivery.ts';
import { isWellFormedEventName } from '../../src/events/registry.ts';
import { CREDENTIAL_HEADERS } from '../../src/logger.ts';
import { createConfiguredKeySource } from '../../src/verification/key-source.ts';
import { parsePublicKey } from '../../src/verification/public-key.ts';
import { buildTestApp } from '../support/test-app.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';

/**
 * Replays every file in test/fixtures/captured/ (format: docs/captured-fixtures.md) through the
 * app: the exact bytes, exactly the recorded headers, the recorded public key, no shared secret.
 * Each file's `expected` block is the contract the app must meet.
 */

const CAPTURED_DIR = new URL('../fixtures/captured/', import.meta.url);
const TABLES = [
  'webhook_deliveries',
  'npp_payments',
  'credit_rejections',
  'quarantined_deliveries',
] as const;
const OUTCOMES = [
  'stored',
  'duplicate',
  'quarantined',
  'unauthorised',
  'no-signing-key',
  'error',
] as const satisfies readonly DeliveryOutcome[];
const STATUS_FOR_OUTCOME: Record<DeliveryOutcome, number> = {
  stored: 200,
  duplicate: 200,
  quarantined: 400,
  unauthorised: 401,
  'no-signing-key': 503,
  error: 500,
};
const STATUS_WORDS: Record<number, string> = {
  200: 'Ok',
  400: 'BadRequest',
  401: 'Unauthorised',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};
/** Transport headers belong to one hop, not to the delivery; the replaying client sets its own. */
const HOP_HEADERS = [
  'host',
  'content-length',
  'transfer-encoding',
  'content-encoding',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'upgrade',
  'expect',
];
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
// What Node will put in a header value: no CR, LF or other control character but tab.
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

const rowCount = z.number().int().min(0);
const capturedDelivery = z
  .strictObject({
    formatVersion: z.literal(1),
    description: z.string().min(1),
    source: z.enum(['synthetic', 'sandbox', 'production', 'simulator']),
    capturedAt: z.iso.datetime(),
    eventName: z.string().refine(isWellFormedEventName, 'must be letters and digits, 1-64'),
    headers: z.record(
      z.string(),
      z.string().regex(HEADER_VALUE, 'a header value cannot hold CR, LF or control characters'),
    ),
    body: z.string().optional(),
    bodyBase64: z.base64().optional(),
    publicKey: z.string().min(1),
    expected: z.strictObject({
      status: z.number().int(),
      outcome: z.enum(OUTCOMES),
      modelled: z.boolean().optional(),
      errorPaths: z.array(z.string()).optional(),
      rows: z.strictObject({
        webhook_deliveries: rowCount,
        npp_payments: rowCount,
        credit_rejections: rowCount,
        quarantined_deliveries: rowCount,
      }),
    }),
  })
  .superRefine((file, ctx) => {
    const problem = (message: string, path: string[]) =>
      ctx.addIssue({ code: 'custom', message, path });
    for (const name of Object.keys(file.headers)) {
      if (!HEADER_NAME.test(name)) problem('header names are lower-case tokens', ['headers', name]);
      if (CREDENTIAL_HEADERS.includes(name.toLowerCase())) {
        problem('credentials are never recorded in a capture', ['headers', name]);
      }
      if (HOP_HEADERS.includes(name.toLowerCase())) {
        problem('transport headers are not recorded; the replaying client sets its own', [
          'headers',
          name,
        ]);
      }
    }
    if ((file.body === undefined) === (file.bodyBase64 === undefined)) {
      problem('exactly one of body and bodyBase64 must be present', ['body']);
    }
    if (file.bodyBase64 !== undefined) {
      const bytes = Buffer.from(file.bodyBase64, 'base64');
      // One spelling per body: readable text when it can be, canonical base64 when it cannot.
      if (bytes.toString('base64') !== file.bodyBase64) {
        problem('must be canonical padded base64 with no line breaks', ['bodyBase64']);
      } else if (isUtf8Text(bytes)) {
        problem('these bytes are UTF-8 text: record them as body, not bodyBase64', ['bodyBase64']);
      }
    }
    const { status, outcome, modelled } = file.expected;
    if (status !== STATUS_FOR_OUTCOME[outcome]) {
      problem(`outcome ${outcome} is answered ${STATUS_FOR_OUTCOME[outcome]}`, ['expected']);
    }
    if (modelled !== undefined && outcome !== 'stored') {
      problem('modelled only applies to a stored delivery', ['expected', 'modelled']);
    }
  });

type CapturedDelivery = z.output<typeof capturedDelivery>;

type LoadedFile =
  | { file: string; ok: true; delivery: CapturedDelivery }
  | { file: string; ok: false; problems: string[] };

function isUtf8Text(bytes: Buffer): boolean {
  return Buffer.from(bytes.toString('utf8'), 'utf8').equals(bytes);
}

function bodyBytes(delivery: CapturedDelivery): Buffer {
  return delivery.body !== undefined
    ? Buffer.from(delivery.body, 'utf8')
    : Buffer.from(delivery.bodyBase64 ?? '', 'base64');
}

function loadFile(file: string): LoadedFile {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(new URL(file, CAPTURED_DIR), 'utf8'));
  } catch (error) {
    return { file, ok: false, problems: [`not JSON: ${(error as Error).message}`] };
  }
  const parsed = capturedDelivery.safeParse(json);
  if (parsed.success) return { file, ok: true, delivery: parsed.data };
  const problems = parsed.error.issues.map(
    (issue) => `${issue.path.join('.') || '(file)'}: ${issue.message}`,
  );
  return { file, ok: false, problems };
}

// Read at collection time, so each file is its own test.
const loaded = readdirSync(CAPTURED_DIR)
  .filter((name) => name.endsWith('.json'))
  .sort()
  .map(loadFile);

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

describe('captured deliveries', () => {
  it('when the captured folder is read, then it holds files and every one is well formed', async () => {
    expect(loaded.length, 'test/fixtures/captured/ holds no *.json').toBeGreaterThan(0);
    const problems: Record<string, string[]> = {};
    for (const entry of loaded) {
      if (!entry.ok) {
        problems[entry.file] = entry.problems;
        continue;
      }
      await parsePublicKey(entry.delivery.publicKey).catch((error: Error) => {
        problems[entry.file] = [`publicKey: ${error.message}`];
      });
    }
    expect(problems).toEqual({});
  });

  for (const entry of loaded) {
    const title = entry.ok
      ? `when ${entry.file} is replayed (${entry.delivery.description}), then ${entry.delivery.expected.status} ${entry.delivery.expected.outcome}`
      : `when ${entry.file} is replayed, then it is first a well-formed captured delivery`;
    it(title, async () => {
      if (!entry.ok)
        throw new Error(`${entry.file} is malformed:\n  ${entry.problems.join('\n  ')}`);
      await replayAndCheck(entry.delivery);
    });
  }
});

async function replayAndCheck(delivery: CapturedDelivery): Promise<void> {
  const { expected } = delivery;
  const bytes = bodyBytes(delivery);
  await database.query(`TRUNCATE ${TABLES.join(', ')}`);
  const key = await parsePublicKey(delivery.publicKey);
  const built = buildTestApp({ db: database.db, keys: createConfiguredKeySource(key, Date.now) });

  let req = request(built.app).post(`/webhooks/${delivery.eventName}`);
  for (const [name, value] of Object.entries(delivery.headers)) req = req.set(name, value);
  // superagent would JSON-encode a Buffer sent as application/json; the bytes must go as they are.
  const res = await req.serialize((data: unknown) => data as string).send(bytes);

  expect(res.status, JSON.stringify(res.body)).toBe(expected.status);
  expect(res.body).toMatchObject({ status: STATUS_WORDS[expected.status] });
  const deliveryLines = built.logs.filter((line) => 'outcome' in line);
  expect(deliveryLines).toEqual([
    expect.objectContaining({ outcome: expected.outcome, status: expected.status }),
  ]);
  if (expected.errorPaths !== undefined) {
    const errors = (res.body as { errors?: { path: string }[] }).errors ?? [];
    expect(errors.map((e) => e.path).sort()).toEqual([...expected.errorPaths].sort());
  }

  const counts: Record<string, number> = {};
  for (const table of TABLES) counts[table] = await database.count(table);
  expect(counts).toEqual(expected.rows);

  if (expected.modelled !== undefined) {
    const rows = await database.query('SELECT modelled FROM webhook_deliveries');
    expect(rows).toEqual([{ modelled: expected.modelled }]);
  }
  // Whatever was kept, stored or quarantined, is the exact bytes that were sent.
  for (const table of ['webhook_deliveries', 'quarantined_deliveries']) {
    const kept = await database.query<{ raw_body: Buffer }>(`SELECT raw_body FROM ${table}`);
    for (const row of kept) expect(row.raw_body.equals(bytes), `${table}.raw_body`).toBe(true);
  }
}
