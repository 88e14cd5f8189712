import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../tools/common/free-port.ts';
import { bodyBytes, freshWebhookId } from '../../support/deliveries.ts';
import { newWebhookSecret } from '../../support/feed-consumer.ts';
import {
  answers,
  exitWithin,
  PROJECT_DIR,
  runMain,
  waitFor,
  type RunningProcess,
} from '../../support/receiver-process.ts';
import { nppPayment } from '../../support/sample-bodies.ts';
import {
  generateSigningKeyPair,
  publicKeyAsProviderHex,
  signBody,
  type SigningKeyPair,
} from '../../support/signing.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * The example consumer (examples/ledger-consumer) as a merchant runs it: its own process
 * (`node examples/ledger-consumer/src/cli/serve.js`, plain Node, configured only through the
 * environment), fed by the real receiver (`src/cli/main.ts serve`): pushed to by its relay, then pulling
 * `GET /feed`. It has no node_modules of its own: Node's resolution walks up from
 * examples/ledger-consumer/src/ to the root node_modules (NODE_PATH would not help: ESM
 * imports ignore it).
 */

const EXAMPLE_DIR = path.join(PROJECT_DIR, 'examples', 'ledger-consumer');
const WEBHOOK_SECRET = 'Basic ZXhhbXBsZS1jb25zdW1lci10ZXN0';
const FEED_TOKEN = 'example-consumer-feed-token-0123456789';

let signer: SigningKeyPair;
let receiverDb: TestDatabase;
const started: RunningProcess[] = [];

beforeAll(async () => {
  signer = await generateSigningKeyPair();
  receiverDb = await createTestDatabase();
});
afterAll(async () => {
  for (const running of started) running.child.kill('SIGKILL');
  await receiverDb.drop();
});

/** `node examples/ledger-consumer/src/cli/serve.js`: nothing from this shell but PATH. */
function runExample(env: Record<string, string>): RunningProcess {
  let output = '';
  const child = spawn(process.execPath, [path.join(EXAMPLE_DIR, 'src', 'main.js')], {
    cwd: PROJECT_DIR,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const running = { child, output: () => output, exited };
  started.push(running);
  return running;
}

/** SIGTERM, and the exit code within 15 s ('still running' otherwise). */
async function stop(running: RunningProcess) {
  running.child.kill('SIGTERM');
  return exitWithin(running, 15_000);
}

interface LedgerRow {
  event_id: string;
  position: string;
  type: string;
  event_name: string;
  business_key: string;
  received_at: Date | null;
  amount: string | null;
  body: string;
}

/** The consumer's table, everything but `stored_at` (the body as jsonb's canonical text). */
const ledgerRows = (ledger: TestDatabase) =>
  ledger.query<LedgerRow>(
    `SELECT event_id, position::text, type, event_name, business_key, received_at, amount::text,
       body::text AS body
     FROM ledger_events ORDER BY position`,
  );

/** Per event of a `GET /feed` page (its text): is it in the ledger, with the same body? */
const comparedWithFeed = (ledger: TestDatabase, pageText: string) =>
  ledger.query<{ id: string; same: boolean | null }>(
    `SELECT f.e ->> 'id' AS id, l.body = f.e AS same
     FROM jsonb_array_elements($1::jsonb -> 'events') AS f(e)
     LEFT JOIN ledger_events l ON l.event_id = f.e ->> 'id'
     ORDER BY (f.e ->> 'position')::bigint`,
    [pageText],
  );

describe('the example ledger consumer (examples/ledger-consumer)', () => {
  it('when the real receiver relays to it and it pulls GET /feed, then each event is stored exactly once, as the feed has it, with exact amounts, and both ways give the same ledger', async () => {
    const secret = newWebhookSecret();
    const [consumerPort, receiverPort, feedPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const pushLedger = await createTestDatabase(async () => {});
    const pullLedger = await createTestDatabase(async () => {});
    try {
      // The consumer first (push mode), so the relay's first POST finds it.
      const consumer = runExample({
        LEDGER_DATABASE_URL: pushLedger.url,
        FEED_HTTP_SECRET: secret.text,
        HOST: '127.0.0.1',
        PORT: String(consumerPort),
      });
      await waitFor(
        () => answers(`http://127.0.0.1:${consumerPort}/healthz`),
        `the consumer to listen (output: ${consumer.output()})`,
        30_000,
      );

      const receiver = runMain('serve', {
        DATABASE_URL: receiverDb.url,
        HOST: '127.0.0.1',
        PORT: String(receiverPort),
        METRICS_PORT: 'off',
        SIGNING_KEY: publicKeyAsProviderHex(signer.publicKey),
        WEBHOOK_SECRETS: WEBHOOK_SECRET,
        FEED_TOKEN,
        FEED_PORT: String(feedPort),
        FEED_HTTP_URL: `http://127.0.0.1:${consumerPort}/ledger`,
        FEED_HTTP_SECRET: secret.text,
        FEED_RETRY_BASE_MS: '100',
        FEED_RETRY_MAX_MS: '1000',
      });
      started.push(receiver);
      await waitFor(
        () => receiver.output().includes('receiver listening'),
        'the receiver to listen',
        60_000,
      );

      const base = `http://127.0.0.1:${receiverPort}`;
      const deliver = (body: Buffer, webhookId: string) =>
        fetch(`${base}/webhooks/NPPReceivePayment`, {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            Webhookid: webhookId,
            Authorisation: WEBHOOK_SECRET,
            'Verification-Signature': signBody(body, signer.privateKey),
          },
          body,
        });

      // Two payments (one with more digits than a double keeps), one delivered twice, and one
      // the receiver quarantines (an authenticated body its schema refuses).
      const exact = Buffer.from(
        '{"TransactionId":"TXLEDGER1","DateTime":"2023-08-11T14:19:16","Amount":12345678901.1234}',
      );
      const second = bodyBytes(nppPayment({ TransactionId: 'TXLEDGER2', Amount: 125.5 }));
      const secondId = freshWebhookId();
      expect((await deliver(exact, freshWebhookId())).status).toBe(200);
      expect((await deliver(second, secondId)).status).toBe(200);
      expect((await deliver(second, secondId)).status).toBe(200); // the platform's repeat
      const refused = bodyBytes(nppPayment({ Amount: 'not money' }));
      expect((await deliver(refused, freshWebhookId())).status).toBe(400);

      // All three relayed (answered 2xx by the consumer) and stored.
      await waitFor(
        async () =>
          (await receiverDb.count(`feed_endpoint_events WHERE state = 'sent'`)) === 3 &&
          (await pushLedger.count('ledger_events')) === 3,
        `three events relayed and stored (consumer output: ${consumer.output()})`,
        30_000,
      );
      const auth = { Authorization: `Bearer ${FEED_TOKEN}` };
      const feedText = await (
        await fetch(`http://127.0.0.1:${feedPort}/feed?after=0&limit=100`, { headers: auth })
      ).text();
      const feedEvents = (JSON.parse(feedText) as { events: { id: string }[] }).events;
      expect(feedEvents.map((e) => e.id)).toEqual(['evt_1', 'evt_2', 'evt_3']);

      // Exactly once each, bodies identical to GET /feed (as JSON values: jsonb equality,
      // numbers compared exactly), and the same when read back into JavaScript.
      expect(await comparedWithFeed(pushLedger, feedText)).toEqual(
        feedEvents.map((e) => ({ id: e.id, same: true })),
      );
      const pushed = await ledgerRows(pushLedger);
      expect(pushed.map((r) => JSON.parse(r.body) as unknown)).toEqual(feedEvents);
      expect(pushed.map((r) => [r.event_id, r.position, r.type, r.amount])).toEqual([
        ['evt_1', '1', 'payment.received', '12345678901.1234'],
        ['evt_2', '2', 'payment.received', '125.5'],
        ['evt_3', '3', 'quarantine.opened', null],
      ]);
      expect(
        await pushLedger.query(`SELECT DISTINCT pg_typeof(amount)::text AS t FROM ledger_events`),
      ).toEqual([{ t: 'numeric' }]);
      expect(consumer.output()).toMatch(
        /"level":"warn","msg":"quarantine.opened: money may be waiting/,
      );

      // The relay sends again after a timeout or a crash: the same event, re-signed now, is
      // answered 2xx and not stored twice.
      const again = JSON.stringify(feedEvents[0]);
      const resend = await fetch(`http://127.0.0.1:${consumerPort}/ledger`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': 'evt_1',
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': new Webhook(secret.text).sign('evt_1', new Date(), again),
        },
        body: again,
      });
      expect(resend.status).toBe(204);
      expect(await pushLedger.count('ledger_events')).toBe(3);
      // A forged POST is refused.
      const forged = await fetch(`http://127.0.0.1:${consumerPort}/ledger`, {
        method: 'POST',
        headers: {
          'webhook-id': 'evt_9',
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': 'v1,AAAA',
        },
        body: again,
      });
      expect(forged.status).toBe(401);

      // Pull mode, into a second database, from the same receiver.
      const pullEnv = {
        LEDGER_DATABASE_URL: pullLedger.url,
        FEED_URL: `http://127.0.0.1:${feedPort}`,
        FEED_TOKEN,
      };
      const puller = runExample(pullEnv);
      // Logged once its tables exist.
      await waitFor(
        () => puller.output().includes('pull: reading the feed'),
        `the pull consumer to start (output: ${puller.output()})`,
        30_000,
      );
      await waitFor(
        async () => (await pullLedger.count('ledger_events')) === 3,
        `the pull consumer to store three events (output: ${puller.output()})`,
        30_000,
      );
      expect(await ledgerRows(pullLedger)).toEqual(pushed);
      expect(await comparedWithFeed(pullLedger, feedText)).toEqual(
        feedEvents.map((e) => ({ id: e.id, same: true })),
      );
      expect(await pullLedger.query('SELECT feed, position::text FROM ledger_cursor')).toEqual([
        { feed: 'feed', position: '3' },
      ]);
      // Stopped during its long poll: at once, cleanly.
      expect(await stop(puller)).toBe(0);
      expect(puller.output()).toContain('"msg":"pull: stopped"');

      // A new payment while the puller is down: pushed at once; the puller, restarted, resumes
      // after its cursor (3) and reads only the new one.
      const third = bodyBytes(nppPayment({ TransactionId: 'TXLEDGER3', Amount: '0.10' }));
      expect((await deliver(third, freshWebhookId())).status).toBe(200);
      await waitFor(
        async () => (await pushLedger.count('ledger_events')) === 4,
        'the fourth event pushed',
        30_000,
      );
      const resumed = runExample(pullEnv);
      await waitFor(
        async () => (await pullLedger.count('ledger_events')) === 4,
        `the pull consumer to resume (output: ${resumed.output()})`,
        30_000,
      );
      expect(resumed.output()).toMatch(/"msg":"pull: reading the feed",[^\n]*"after":"3"/);
      expect(await ledgerRows(pullLedger)).toEqual(await ledgerRows(pushLedger));
      // Every amount is the feed's decimal string, exactly (numeric, never a JS number).
      for (const ledger of [pushLedger, pullLedger]) {
        expect(
          await ledger.query(
            `SELECT event_id FROM ledger_events
             WHERE amount::text IS DISTINCT FROM body #>> '{data,fields,amount}'
               AND type <> 'quarantine.opened'`,
          ),
        ).toEqual([]);
      }

      expect(await stop(resumed)).toBe(0);
      expect(await stop(consumer)).toBe(0);
      expect(await stop(receiver)).toBe(0);
      for (const output of [consumer.output(), puller.output(), resumed.output()]) {
        expect(output).not.toContain('"level":"error"');
        expect(output).not.toContain(secret.text);
        expect(output).not.toContain(FEED_TOKEN);
      }
    } finally {
      for (const running of started) running.child.kill('SIGKILL');
      await pushLedger.drop();
      await pullLedger.drop();
    }
  }, 180_000);

  it('when its own tests run (node --test, as its npm test does) against a fresh database, then all pass and none is skipped', async () => {
    const ledger = await createTestDatabase(async () => {});
    try {
      const files = readdirSync(path.join(EXAMPLE_DIR, 'test'))
        .filter((name) => name.endsWith('.test.js'))
        .map((name) => path.join('test', name));
      let output = '';
      const child = spawn(process.execPath, ['--test', '--test-reporter=tap', ...files], {
        cwd: EXAMPLE_DIR,
        env: { PATH: process.env.PATH ?? '', LEDGER_DATABASE_URL: ledger.url },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<number | null>((resolve) =>
        child.on('exit', (code) => resolve(code)),
      );
      const running = { child, output: () => output, exited };
      started.push(running);
      expect(await exitWithin(running, 90_000), output).toBe(0);
      expect(output).toMatch(/^# fail 0$/m);
      // A skipped suite is not counted in "# skipped": look for its reason too.
      expect(output).toMatch(/^# skipped 0$/m);
      expect(output).not.toContain('LEDGER_DATABASE_URL is not set');
      expect(Number(/^# pass (\d+)$/m.exec(output)?.[1])).toBeGreaterThan(10);
    } finally {
      await ledger.drop();
    }
  }, 120_000);
});
