import { execFile } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import {
  copyFileSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answerWords, DESCRIPTIONS } from '../answer-words.ts';
import { captureFilesAt, loadCaptureFile } from '../capture-files.ts';
import { duplicate, quarantined } from '../../../src/receiver/contract.ts';
import { parseCapturedDelivery } from '../../../src/capture/index.ts';
import { exportQuarantine } from '../export-quarantine.ts';
import { replayCaptures, summariseReplay, webhookIdCounter } from '../replay-deliveries.ts';
import { sendDelivery } from '../../../test/support/deliveries.ts';
import { nppPayment, rejectionRecord } from '../../../test/support/sample-bodies.ts';
import { generateSigningKeyPair } from '../../common/signing.ts';
import { buildTestApp } from '../../../test/support/test-app.ts';
import { useTestbed } from '../../../test/support/testbed.ts';

const bed = useTestbed();
const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/captured/', import.meta.url));
const SENDER_KEY = createPublicKey(
  readFileSync(new URL('../../../test/fixtures/keys/captured-sender.public.pem', import.meta.url)),
);
const PROJECT = fileURLToPath(new URL('../../..', import.meta.url));
const SECRET = 'Basic cmVwbGF5LXNlY3JldA==';
const fixtures = () => captureFilesAt(FIXTURES).map(loadCaptureFile);

let dir: string;
const servers: Server[] = [];

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'replay-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** The receiver on a real socket, trusting the key that signed the fixtures. */
async function serve(secrets: string[] = [], publicKey = SENDER_KEY): Promise<string> {
  const built = buildTestApp({ db: bed.database.db, publicKey, secrets });
  const server = built.app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('replay', () => {
  it('when the fixture folder is replayed twice, then every answer matches its expected status both times', async () => {
    const url = await serve();
    const first = await replayCaptures(fixtures(), { url });
    const second = await replayCaptures(fixtures(), { url });

    expect(first.filter((r) => r.differences.length > 0)).toEqual([]);
    expect(second.filter((r) => r.differences.length > 0)).toEqual([]);
    expect(first.length).toBeGreaterThan(10);
    expect(first.find((r) => r.file.endsWith('refused-wrong-signature.json'))).toMatchObject({
      status: 401,
      envelopeStatus: 'Unauthorised',
    });
    // Replayed twice, stored once.
    expect(await bed.database.count('webhook_deliveries')).toBe(
      first.filter((r) => r.status === 200).length,
    );
  });

  it('when replayed under new Webhookids, then the known bodies are still answered 200 and not stored again', async () => {
    const url = await serve();
    await replayCaptures(fixtures(), { url });
    const stored = await bed.database.count('webhook_deliveries');
    const again = await replayCaptures(fixtures(), { url, newWebhookId: webhookIdCounter() });

    expect(again.filter((r) => r.differences.length > 0)).toEqual([]);
    expect(await bed.database.count('webhook_deliveries')).toBe(stored);
  });

  it('when the target checks a shared secret, then replay needs --secret and is 401 without it', async () => {
    const url = await serve([SECRET]);
    const payment = fixtures().filter((f) => f.file.endsWith('legacy-date-string-amount.json'));

    const [without] = await replayCaptures(payment, { url });
    const [withSecret] = await replayCaptures(payment, { url, secret: SECRET });

    expect(without).toMatchObject({
      status: 401,
      differences: [expect.stringMatching(/^status/), expect.stringMatching(/^envelope/)],
    });
    expect(withSecret).toMatchObject({ status: 200, envelopeStatus: 'Ok', differences: [] });
  });

  it('when an answer is not the expected one, a file is malformed or nothing listens, then each is reported as different', async () => {
    const altered = path.join(dir, 'altered.json');
    const json = JSON.parse(
      readFileSync(path.join(FIXTURES, 'npp-receive-payment.refused-amount-ten.json'), 'utf8'),
    );
    json.expected = {
      ...json.expected,
      status: 200,
      outcome: 'stored',
      errorPaths: undefined,
      rows: { ...json.expected.rows, quarantined_deliveries: 0, webhook_deliveries: 1 },
    };
    writeFileSync(altered, JSON.stringify(json));
    const broken = path.join(dir, 'broken.json');
    writeFileSync(broken, '{"formatVersion": 2}');

    const results = await replayCaptures([loadCaptureFile(altered), loadCaptureFile(broken)], {
      url: await serve(),
    });
    const unreachable = await replayCaptures([loadCaptureFile(altered)], {
      url: 'http://127.0.0.1:9',
    });

    expect(results[0]).toMatchObject({
      status: 400,
      envelopeStatus: 'BadRequest',
      expectedStatus: 200,
    });
    expect(results[0]?.differences).toContain('status: expected 200, got 400');
    expect(results[1]).toMatchObject({
      status: undefined,
      differences: expect.arrayContaining([expect.stringMatching(/^not sent: formatVersion/)]),
    });
    expect(unreachable[0]?.differences).toEqual([
      expect.stringMatching(/^no answer: .*ECONNREFUSED/),
    ]);
    expect(summariseReplay(results)).toEqual({ files: 2, matched: 0, differed: 2, duplicates: 0 });
  });

  it('when the CLI finds a different answer, then it exits 1, and 0 with --report-only', async () => {
    const url = await serve();
    const folder = mkdtempSync(path.join(dir, 'cli-'));
    copyFileSync(
      path.join(FIXTURES, 'npp-receive-payment.refused-wrong-signature.json'),
      path.join(folder, 'a.json'),
    );
    const wrong = JSON.parse(readFileSync(path.join(folder, 'a.json'), 'utf8'));
    wrong.expected.status = 200;
    wrong.expected.outcome = 'stored';
    writeFileSync(path.join(folder, 'b.json'), JSON.stringify(wrong));

    const failing = await runCli([folder, '--url', url]);
    const reportOnly = await runCli([folder, '--url', url, '--report-only']);

    expect(failing.code).toBe(1);
    expect(failing.stdout).toMatch(
      /ok {3}a\.json: 401 Unauthorised: "Authorisation or signature check failed" \(expected 401\)/,
    );
    expect(failing.stdout).toMatch(/DIFF b\.json: 401 Unauthorised: ".*" \(expected 200\)/);
    expect(failing.stdout).toMatch(/2 replayed to .*: 1 as expected, 1 different/);
    expect(reportOnly.code).toBe(0);
  }, 60_000);
});

describe('replay says what the receiver answered', () => {
  it('when a delivery is replayed twice, then the first is answered stored and the second duplicate (already stored), each line and the summary saying so', async () => {
    const url = await serve();
    const folder = mkdtempSync(path.join(dir, 'twice-'));
    for (const name of ['a', 'b'])
      copyFileSync(
        path.join(FIXTURES, 'npp-receive-payment.iso-date-numeric-amount.json'),
        path.join(folder, `${name}.json`),
      );
    copyFileSync(
      path.join(FIXTURES, 'npp-receive-payment.refused-amount-ten.json'),
      path.join(folder, 'c.json'),
    );

    const results = await replayCaptures(captureFilesAt(folder).map(loadCaptureFile), { url });
    const cli = await runCli([folder, '--url', url]);

    expect(results.map((r) => [r.status, r.answer, r.description])).toEqual([
      [200, 'stored', DESCRIPTIONS.stored],
      [200, 'duplicate', DESCRIPTIONS.duplicate],
      [400, 'quarantined', DESCRIPTIONS.quarantined],
    ]);
    expect(summariseReplay(results)).toMatchObject({ matched: 3, duplicates: 1 });
    // The CLI ran second: the receiver has both bodies by now.
    expect(cli.code).toBe(0);
    expect(cli.stdout.split('\n').slice(0, 3)).toEqual([
      'ok   a.json: 200 Ok: duplicate (already stored) (expected 200)',
      'ok   b.json: 200 Ok: duplicate (already stored) (expected 200)',
      'ok   c.json: 400 BadRequest: quarantined (expected 400)',
    ]);
    expect(cli.stdout).toContain(
      '2 answered duplicate (already stored): the receiver already had them, so this replay did not validate or store them again',
    );
    expect(await bed.database.count('webhook_deliveries')).toBe(1);
  }, 60_000);

  it("when the receiver's answers are named, then the texts are the receiver's own", () => {
    expect(DESCRIPTIONS.duplicate).toBe(duplicate({ webhookId: '1' }, '', undefined).description);
    expect(DESCRIPTIONS.quarantined).toBe(quarantined([], {}).description);
    expect(answerWords(DESCRIPTIONS.duplicate)).toBe('duplicate (already stored)');
    expect(answerWords('Signing key unavailable; retry later')).toBe(
      '"Signing key unavailable; retry later"',
    );
    expect(answerWords(undefined)).toBeUndefined();
  });
});

async function runCli(args: string[]): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await promisify(execFile)(
      'npx',
      ['tsx', 'tools/capture/replay-cli.ts', ...args],
      {
        cwd: PROJECT,
      },
    );
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, stdout: failed.stdout };
  }
}

describe('export-quarantine', () => {
  /** Three authenticated deliveries the receiver refuses, sent with the shared secret. */
  async function quarantineThree(): Promise<void> {
    const built = buildTestApp({
      db: bed.database.db,
      publicKey: bed.signer.publicKey,
      secrets: [SECRET],
    });
    const send = (options: Parameters<typeof sendDelivery>[1]) =>
      sendDelivery(built.app, {
        signWith: bed.signer.privateKey,
        secret: SECRET,
        ...options,
      }).expect(400);
    await send({ body: nppPayment({ Amount: 'ten' }) });
    await send({ body: nppPayment(), webhookId: null });
    await send({
      event: 'NPPCreditRejections',
      body: [rejectionRecord(), rejectionRecord({ id: undefined })],
    });
  }

  it('when quarantined rows are exported, then each is a valid file with the exact bytes, the signature, no secret, and 200 stored as its target', async () => {
    await quarantineThree();
    const out = mkdtempSync(path.join(dir, 'export-'));

    const result = await exportQuarantine(bed.database.db, {
      outDir: out,
      publicKey: bed.signer.publicKey,
    });

    expect(result.skipped).toEqual([]);
    expect(readdirSync(out).sort()).toEqual(
      result.written.map((w) => path.basename(w.file)).sort(),
    );
    expect(readdirSync(out).map((name) => name.replace(/\d+\.json$/, ''))).toEqual(
      expect.arrayContaining([
        'quarantine.npp-receive-payment.',
        'quarantine.npp-credit-rejections.',
      ]),
    );
    const stored = await bed.database.query<{ id: string; raw_body: Buffer }>(
      'SELECT id, raw_body FROM quarantined_deliveries',
    );
    for (const { id, file } of result.written) {
      const text = readFileSync(file, 'utf8');
      const capture = parseCapturedDelivery(text);
      expect(text).not.toContain('cmVwbGF5LXNlY3JldA');
      expect(capture).toMatchObject({
        source: 'quarantine',
        expected: { status: 200, outcome: 'stored' },
      });
      expect(capture.headers['verification-signature']).toBeTruthy();
      expect(
        Buffer.from(capture.body ?? '', 'utf8').equals(
          stored.find((row) => row.id === id)?.raw_body ?? Buffer.alloc(0),
        ),
      ).toBe(true);
    }
    const rejections = result.written
      .map((w) => parseCapturedDelivery(readFileSync(w.file, 'utf8')))
      .find((c) => c.eventName === 'NPPCreditRejections');
    expect(rejections?.expected.rows).toEqual({
      webhook_deliveries: 1,
      npp_payments: 0,
      payto_payments: 0,
      credit_rejections: 2,
      conflicts: 0,
      quarantined_deliveries: 0,
    });
  });

  it('when the exported files are replayed to the unchanged receiver, then the signatures verify and each is refused again (400, not 401)', async () => {
    await quarantineThree();
    const out = mkdtempSync(path.join(dir, 'export-'));
    await exportQuarantine(bed.database.db, { outDir: out, publicKey: bed.signer.publicKey });

    const results = await replayCaptures(captureFilesAt(out).map(loadCaptureFile), {
      url: await serve([SECRET], bed.signer.publicKey),
      secret: SECRET,
    });

    expect(results.map((r) => [r.status, r.differences])).toEqual(
      results.map(() => [
        400,
        ['status: expected 200, got 400', 'envelope status: expected "Ok", got "BadRequest"'],
      ]),
    );
    expect(await bed.database.count('quarantined_deliveries')).toBe(3);
  });

  it('when --id, --since, an existing file or another key apply, then only the matching rows are written', async () => {
    await quarantineThree();
    const ids = (
      await bed.database.query<{ id: string }>('SELECT id FROM quarantined_deliveries ORDER BY id')
    ).map((r) => r.id);
    const out = mkdtempSync(path.join(dir, 'export-'));
    const other = await generateSigningKeyPair();

    const one = await exportQuarantine(bed.database.db, {
      outDir: out,
      publicKey: bed.signer.publicKey,
      id: ids[1] as string,
    });
    const future = await exportQuarantine(bed.database.db, {
      outDir: out,
      publicKey: bed.signer.publicKey,
      since: new Date(Date.now() + 60_000),
    });
    const again = await exportQuarantine(bed.database.db, {
      outDir: out,
      publicKey: bed.signer.publicKey,
    });
    const wrongKey = await exportQuarantine(bed.database.db, {
      outDir: mkdtempSync(path.join(dir, 'export-')),
      publicKey: other.publicKey,
    });

    expect(one.written.map((w) => w.id)).toEqual([ids[1]]);
    expect(future).toEqual({ written: [], skipped: [] });
    expect(again.written.map((w) => w.id)).toEqual([ids[0], ids[2]]);
    expect(again.skipped).toEqual([
      { id: ids[1], kind: 'exists', reason: expect.stringMatching(/already exists/) },
    ]);
    expect(wrongKey.written).toEqual([]);
    expect(wrongKey.skipped.map((s) => s.kind)).toEqual(['key', 'key', 'key']);
  });
});
