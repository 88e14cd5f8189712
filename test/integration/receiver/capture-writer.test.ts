import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadCaptureFile } from '../../../tools/capture/capture-files.ts';
import { createCaptureWriter } from '../../../src/capture/capture-writer.ts';
import type { Capture } from '../../../src/receiver/index.ts';
import { parseCapturedDelivery } from '../../../src/capture/captured-delivery.ts';
import {
  differencesFromExpected,
  ROW_TABLES,
  type RowTable,
} from '../../../src/capture/expected-answer.ts';
import { replayCaptures } from '../../../tools/capture/replay-deliveries.ts';
import { createLogger } from '../../../src/lib/logger.ts';
import { createConfiguredKeySource } from '../../../src/receiver/verification/key-source.ts';
import { parsePublicKey } from '../../../src/receiver/verification/public-key.ts';
import { freshWebhookId, sendDelivery, type DeliveryOptions } from '../../support/deliveries.ts';
import { nppPayment, rejectionRecord } from '../../support/sample-bodies.ts';
import { generateSigningKeyPair, signBody } from '../../support/signing.ts';
import { buildTestApp, type TestApp } from '../../support/test-app.ts';
import { useTestbed } from '../../support/testbed.ts';

const bed = useTestbed();
const SECRET = 'Basic c2VjcmV0LXZhbHVlLTQy';
let dir: string;
let live: TestApp;
let seen: { headers: Capture['headers']; rawBody: Buffer; path: string }[];
let logLines: string[];

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'capture-writer-'));
  live = buildTestApp({ db: bed.database.db, publicKey: bed.signer.publicKey, secrets: [SECRET] });
  logLines = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function writer(keys = createConfiguredKeySource(bed.signer.publicKey, Date.now)) {
  const sink = { write: (line: string) => void logLines.push(line) };
  return createCaptureWriter({ dir, logger: createLogger('debug', sink), keys });
}

/** The live app behind a wrapper that keeps what the webhook route sees: headers and raw bytes. */
function wrapped() {
  seen = [];
  const outer = express();
  outer.use((req, res, next) => {
    res.on('finish', () =>
      seen.push({ headers: req.headers, rawBody: req.body as Buffer, path: req.path }),
    );
    next();
  });
  outer.use(live.app);
  return outer;
}

/** Sends a delivery to the live app and hands the writer what the route would hand it. */
async function deliverAndCapture(options: DeliveryOptions): Promise<string[]> {
  const res = await sendDelivery(wrapped(), {
    secret: SECRET,
    signWith: bed.signer.privateKey,
    ...options,
  });
  const request = seen.at(-1);
  const line = live.logs.filter((entry) => 'outcome' in entry).at(-1);
  if (!request || !line) throw new Error('the live app saw no delivery');
  const errors = (res.body as { errors?: { path: string }[] }).errors;
  await writer()({
    eventName: request.path.replace('/webhooks/', ''),
    rawBody: request.rawBody,
    headers: request.headers,
    httpStatus: res.status,
    outcome: line.outcome as string,
    ...(errors && { errorPaths: errors.map((e) => e.path) }),
  });
  return readdirSync(dir).sort();
}

/** The fixture test's replay: alone, into empty tables, no secret, the file's own key. */
async function replayAlone(file: string): Promise<string[]> {
  const loaded = loadCaptureFile(path.join(dir, file));
  if (!loaded.ok) throw new Error(loaded.problems.join('; '));
  await bed.database.query(`TRUNCATE ${ROW_TABLES.join(', ')}`);
  const key = await parsePublicKey(loaded.delivery.publicKey);
  const fresh = buildTestApp({
    db: bed.database.db,
    keys: createConfiguredKeySource(key, Date.now),
  });
  const server: Server = fresh.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const [result] = await replayCaptures([loaded], { url });
    const rows = {} as Record<RowTable, number>;
    for (const table of ROW_TABLES) rows[table] = await bed.database.count(table);
    const modelled = await bed.database.query<{ modelled: boolean }>(
      'SELECT modelled FROM webhook_deliveries',
    );
    return [
      ...(result?.differences ?? ['not replayed']),
      ...differencesFromExpected(loaded.delivery.expected, {
        status: result?.status ?? 0,
        envelopeStatus: result?.envelopeStatus,
        outcome: fresh.logs.find((entry) => 'outcome' in entry)?.outcome as string,
        rows,
        modelled: modelled.map((row) => row.modelled),
      }),
    ];
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('capture writer', () => {
  it('when a stored delivery is captured, then the file replays alone as 200 stored with the same rows', async () => {
    const webhookId = freshWebhookId();
    const files = await deliverAndCapture({ body: nppPayment(), webhookId });

    expect(files).toEqual([
      expect.stringMatching(
        new RegExp(
          `^\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d\\.\\d{3}Z-NPPReceivePayment-${webhookId}\\.json$`,
        ),
      ),
    ]);
    const file = parseCapturedDelivery(readFileSync(path.join(dir, files[0] as string), 'utf8'));
    expect(file).toMatchObject({
      source: 'capture',
      expected: { status: 200, outcome: 'stored', modelled: true },
    });
    expect(file.expected.rows).toEqual({
      webhook_deliveries: 1,
      npp_payments: 1,
      payto_payments: 0,
      credit_rejections: 0,
      conflicts: 0,
      quarantined_deliveries: 0,
    });
    expect(await replayAlone(files[0] as string)).toEqual([]);
  });

  it('when the delivery carried Authorisation, Authorization and a cookie, then no credential value reaches the file', async () => {
    const files = await deliverAndCapture({
      body: nppPayment(),
      headers: {
        Authorization: 'Bearer other-credential-77',
        Cookie: 'session=cookie-credential-88',
      },
    });

    const text = readFileSync(path.join(dir, files[0] as string), 'utf8');
    for (const secret of ['c2VjcmV0LXZhbHVlLTQy', 'other-credential-77', 'cookie-credential-88']) {
      expect(text).not.toContain(secret);
    }
    const recorded = Object.keys(parseCapturedDelivery(text).headers);
    expect(recorded).toEqual(expect.arrayContaining(['webhookid', 'verification-signature']));
    for (const name of ['authorisation', 'authorization', 'cookie', 'host', 'content-length']) {
      expect(recorded).not.toContain(name);
    }
  });

  it('when a duplicate is captured, then the file records what a replay alone gives: stored', async () => {
    const options = {
      body: [rejectionRecord(), rejectionRecord()],
      webhookId: freshWebhookId(),
    };
    await deliverAndCapture({ ...options, event: 'InboundDirectCreditRejections' });
    const files = await deliverAndCapture({ ...options, event: 'InboundDirectCreditRejections' });

    expect(files).toHaveLength(2);
    const second = parseCapturedDelivery(readFileSync(path.join(dir, files[1] as string), 'utf8'));
    expect(second.description).toMatch(/answered 200 duplicate; replayed alone it is 200 stored/);
    expect(second.expected.rows.credit_rejections).toBe(2);
    expect(await replayAlone(files[1] as string)).toEqual([]);
  });

  it('when a quarantined delivery is captured, then the file replays alone as 400 with the same error paths', async () => {
    const files = await deliverAndCapture({ body: nppPayment({ Amount: 'ten' }) });

    const file = parseCapturedDelivery(readFileSync(path.join(dir, files[0] as string), 'utf8'));
    expect(file.expected).toMatchObject({
      status: 400,
      outcome: 'quarantined',
      errorPaths: ['Amount'],
    });
    expect(await replayAlone(files[0] as string)).toEqual([]);
  });

  it('when a delivery is refused at the secret or signature check, then nothing is written', async () => {
    await deliverAndCapture({ body: nppPayment(), secret: 'Basic wrong' });
    const other = await generateSigningKeyPair();
    const files = await deliverAndCapture({ body: nppPayment(), signWith: other.privateKey });

    expect(files).toEqual([]);
  });

  it('when the key in hand no longer verifies the delivery, then nothing is written and a warning is logged', async () => {
    const rotated = await generateSigningKeyPair();
    await writer(createConfiguredKeySource(rotated.publicKey, Date.now))(storedCapture());

    expect(readdirSync(dir)).toEqual([]);
    expect(logLines.join('')).toMatch(/delivery capture not written/);
  });

  it('when the folder cannot be written, then the writer resolves and logs a warning', async () => {
    const notAFolder = path.join(dir, 'file');
    writeFileSync(notAFolder, '');
    const sink = { write: (line: string) => void logLines.push(line) };
    const write = createCaptureWriter({
      dir: notAFolder,
      logger: createLogger('debug', sink),
      keys: createConfiguredKeySource(bed.signer.publicKey, Date.now),
    });

    await expect(write(storedCapture())).resolves.toBeUndefined();
    expect(logLines.join('')).toMatch(/delivery capture not written/);
  });

  it('when two captures share a time and a Webhookid, then both are kept under different names', async () => {
    const capture = storedCapture();
    const at = new Date('2026-11-22T01:00:00.000Z');
    const sink = { write: (line: string) => void logLines.push(line) };
    const write = createCaptureWriter({
      dir,
      logger: createLogger('debug', sink),
      keys: createConfiguredKeySource(bed.signer.publicKey, Date.now),
      now: () => at,
    });
    await Promise.all([write(capture), write(capture)]);

    expect(readdirSync(dir).sort()).toEqual([
      '2026-11-22T01-00-00.000Z-NPPReceivePayment-777-2.json',
      '2026-11-22T01-00-00.000Z-NPPReceivePayment-777.json',
    ]);
  });
});

function storedCapture(): Capture {
  const body = Buffer.from(JSON.stringify(nppPayment()));
  return {
    eventName: 'NPPReceivePayment',
    rawBody: body,
    headers: {
      'content-type': 'application/json',
      webhookid: '777',
      'verification-signature': signBody(body, bed.signer.privateKey),
      authorisation: SECRET,
    },
    httpStatus: 200,
    outcome: 'stored',
  };
}
