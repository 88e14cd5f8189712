import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyBytes } from '../../../src/capture/capture-body.ts';
import { captureFilesAt, loadCaptureFile } from '../../../tools/capture/capture-files.ts';
import type { CapturedDelivery } from '../../../src/capture/captured-delivery.ts';
import {
  differencesFromExpected,
  ROW_TABLES,
  type RowTable,
} from '../../../src/capture/expected-answer.ts';
import { createConfiguredKeySource } from '../../../src/receiver/verification/key-source.ts';
import { parsePublicKey } from '../../../src/receiver/verification/public-key.ts';
import { buildTestApp } from '../../support/test-app.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * Replays every file in test/fixtures/captured/ (format: docs/captured-fixtures.md, defined in
 * src/capture/captured-delivery.ts) through the app: the exact bytes, exactly the recorded
 * headers, the recorded public key, no shared secret. Each file's `expected` block is the
 * contract the app must meet.
 */

const CAPTURED_DIR = fileURLToPath(new URL('../../fixtures/captured/', import.meta.url));

// Read at collection time, so each file is its own test.
const loaded = captureFilesAt(CAPTURED_DIR).map(loadCaptureFile);
const shortName = (file: string) => file.slice(CAPTURED_DIR.length);

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

describe('captured deliveries', () => {
  it('when the captured folder is read, then it holds files and every one is well formed', async () => {
    expect(loaded.length, 'test/fixtures/captured/ holds no *.json').toBeGreaterThan(0);
    const problems: Record<string, readonly string[]> = {};
    for (const entry of loaded) {
      if (!entry.ok) {
        problems[shortName(entry.file)] = entry.problems;
        continue;
      }
      await parsePublicKey(entry.delivery.publicKey).catch((error: Error) => {
        problems[shortName(entry.file)] = [`publicKey: ${error.message}`];
      });
    }
    expect(problems).toEqual({});
  });

  for (const entry of loaded) {
    const file = shortName(entry.file);
    const title = entry.ok
      ? `when ${file} is replayed (${entry.delivery.description}), then ${entry.delivery.expected.status} ${entry.delivery.expected.outcome}`
      : `when ${file} is replayed, then it is first a well-formed captured delivery`;
    it(title, async () => {
      if (!entry.ok) throw new Error(`${file} is malformed:\n  ${entry.problems.join('\n  ')}`);
      await replayAndCheck(entry.delivery);
    });
  }
});

async function replayAndCheck(delivery: CapturedDelivery): Promise<void> {
  const bytes = bodyBytes(delivery);
  await database.query(`TRUNCATE ${ROW_TABLES.join(', ')}`);
  const key = await parsePublicKey(delivery.publicKey);
  const built = buildTestApp({ db: database.db, keys: createConfiguredKeySource(key, Date.now) });

  let req = request(built.app).post(`/webhooks/${delivery.eventName}`);
  for (const [name, value] of Object.entries(delivery.headers)) req = req.set(name, value);
  // superagent would JSON-encode a Buffer sent as application/json; the bytes must go as they are.
  const res = await req.serialize((data: unknown) => data as string).send(bytes);
  const envelope = res.body as { status?: string; errors?: { path: string }[] };

  const deliveryLines = built.logs.filter((line) => 'outcome' in line);
  expect(deliveryLines, 'one delivery log line').toHaveLength(1);
  const rows = {} as Record<RowTable, number>;
  for (const table of ROW_TABLES) rows[table] = await database.count(table);
  const modelled = await database.query<{ modelled: boolean }>(
    'SELECT modelled FROM webhook_deliveries',
  );
  const differences = differencesFromExpected(delivery.expected, {
    status: res.status,
    envelopeStatus: envelope.status,
    outcome: deliveryLines[0]?.outcome as string,
    errorPaths: (envelope.errors ?? []).map((e) => e.path),
    rows,
    modelled: modelled.map((row) => row.modelled),
  });
  expect(differences, JSON.stringify(res.body)).toEqual([]);

  // Whatever was kept, stored or quarantined, is the exact bytes that were sent.
  for (const table of ['webhook_deliveries', 'quarantined_deliveries']) {
    const kept = await database.query<{ raw_body: Buffer }>(`SELECT raw_body FROM ${table}`);
    for (const row of kept) expect(row.raw_body.equals(bytes), `${table}.raw_body`).toBe(true);
  }
}
