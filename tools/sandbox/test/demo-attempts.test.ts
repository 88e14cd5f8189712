import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duplicate, quarantined } from '../../../src/receiver/contract.ts';
import { PUBLIC_KEY_PATH } from '../../../src/lib/platform-key.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.ts';
import { DESCRIPTIONS } from '../../capture/answer-words.ts';
import { closeServer } from '../core/close-server.ts';
import { describeAttempts } from '../demo/attempts.ts';
import { runDemo } from '../demo/run-demo.ts';
import { toolExitCode } from '../../common/run-tool.ts';
import { startReceiver } from './receiver.ts';
import { CREDENTIALS, startTestSandbox } from './support.ts';

const SECRET = 'Basic ZGVtby1hdHRlbXB0cw==';
const UNAVAILABLE = JSON.stringify({
  status: 'ServiceUnavailable',
  statusDescription: 'Signing key unavailable; retry later',
  durationMs: 0,
});
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

/**
 * In front of the receiver: the first webhook is answered 503 (as a receiver without its key
 * yet answers), everything else is passed on byte for byte.
 */
async function answer503Once(receiverPort: number): Promise<{ server: Server; url: string }> {
  let refused = false;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (!refused && req.method === 'POST' && req.url?.startsWith('/webhooks/')) {
        refused = true;
        res.writeHead(503, { 'Content-Type': 'application/json; charset=utf-8' }).end(UNAVAILABLE);
        return;
      }
      const forward = request(
        {
          host: '127.0.0.1',
          port: receiverPort,
          method: req.method,
          path: req.url,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.writeHead(502).end());
      forward.end(Buffer.concat(chunks));
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('the demo shows every attempt', () => {
  it('when the receiver answers the first delivery 503 and stores it on the retry, then the demo shows the 503 and the retry, not a plain 200', async () => {
    const { url } = await startTestSandbox({ retryDelayMs: 200 });
    const receiver = await startReceiver(database.db, `${url}${PUBLIC_KEY_PATH}`, [SECRET]);
    const front = await answer503Once(receiver.port);
    const lines: string[] = [];
    try {
      const code = await toolExitCode(
        runDemo({
          sandboxUrl: url,
          apiKey: CREDENTIALS.apiKey,
          receiver: front.url,
          secret: SECRET,
          print: (line) => lines.push(line),
        }),
        'demo failed',
        (line) => lines.push(line),
      );
      expect(code, lines.join('\n')).toBe(0);
    } finally {
      await closeServer(front.server);
      await receiver.close();
    }
    const text = lines.join('\n');

    expect(text, text).toMatch(
      /^ {2}ok {2}NPPReceivePayment 125\.50 → Webhookid \d+: 503 "Signing key unavailable; retry later" → 200 stored on the retry$/m,
    );
    expect(text).toMatch(/^ {2}ok {2}NPPReceivePayment 42\.00 → Webhookid \d+: 200 stored$/m);
    // The platform's answer not awaited (a fault), then its retry: the receiver had it already.
    expect(text).toMatch(
      /^ {2}ok {2}NPPReceivePayment Webhookid \d+: no answer \(answer not awaited \(sandbox fault webhook-timeout\)\) → 200 duplicate \(already stored\) on the retry$/m,
    );
    expect(text).toMatch(
      /^ {2}ok {2}Webhookid \d+: 200 duplicate \(already stored\) on the resend$/m,
    );
    expect(text).toMatch(
      /^ {2}ok {2}forged payment: 401 "Authorisation or signature check failed"$/m,
    );
    expect(text).toMatch(
      /^Receiver answers: 503 ×1, 200 ×\d+, 401 ×1; attempts without an answer: 1$/m,
    );
    expect(text).toContain('Every answer was as expected.');
    expect(await database.count('quarantined_deliveries')).toBe(0);
  }, 60_000);

  it('when attempts are described, then each one is, in order, and a last answer that is not the one expected reads as such', () => {
    expect(
      describeAttempts([
        { kind: 'first', responseCode: 503, responseBody: UNAVAILABLE },
        { kind: 'retry', error: 'connect ECONNREFUSED 127.0.0.1:1' },
      ]),
    ).toBe(
      '503 "Signing key unavailable; retry later" → no answer (connect ECONNREFUSED 127.0.0.1:1) on the retry',
    );
    expect(describeAttempts([{ kind: 'first', responseCode: 500, responseBody: 'oops' }])).toBe(
      '500',
    );
    expect(describeAttempts([])).toBe('no attempt');
  });

  it("when the receiver's answers are named, then the texts are the receiver's own", () => {
    expect(DESCRIPTIONS.duplicate).toBe(duplicate({ webhookId: '1' }, '', undefined).description);
    expect(DESCRIPTIONS.quarantined).toBe(quarantined([], {}).description);
  });
});
