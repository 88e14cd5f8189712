import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_KEY_PATH } from '../../../src/lib/platform-key.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.ts';
import { runDemo } from '../demo/run-demo.ts';
import { toolExitCode } from '../../common/run-tool.ts';
import { startReceiver } from './receiver.ts';
import { CREDENTIALS, startTestSandbox } from './support.ts';

const SECRET = 'Basic c2FuZGJveC1lMmU=';
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

describe('the sandbox and the receiver, end to end', () => {
  it('when the demo plays its day against a real receiver, then every answer is as expected and exactly the genuine notifications are stored', async () => {
    const { url } = await startTestSandbox({ retryDelayMs: 200 });
    const receiver = await startReceiver(database.db, `${url}${PUBLIC_KEY_PATH}`, [SECRET]);
    const lines: string[] = [];
    try {
      const code = await toolExitCode(
        runDemo({
          sandboxUrl: url,
          apiKey: CREDENTIALS.apiKey,
          receiver: receiver.url,
          secret: SECRET,
          print: (line) => lines.push(line),
        }),
        'demo failed',
        (line) => lines.push(line),
      );
      expect(code, lines.join('\n')).toBe(0);
    } finally {
      await receiver.close();
    }
    expect(lines.join('\n')).toContain('Every answer was as expected.');
    expect(lines.join('\n')).toMatch(/Receiver answers: 200 ×\d+, 401 ×1/);

    // 3 NPP payments (one of them delivered twice), 2 PayTo, 1 direct entry, 2 rejection batches.
    const deliveries = await database.query<{ event_name: string; n: string }>(
      'SELECT event_name, count(*) AS n FROM webhook_deliveries GROUP BY event_name ORDER BY event_name',
    );
    expect(Object.fromEntries(deliveries.map((d) => [d.event_name, Number(d.n)]))).toEqual({
      InboundDirectCredit: 1,
      InboundDirectCreditRejections: 1,
      NPPCreditRejections: 1,
      NPPReceivePayment: 3,
      PayToReceivePayment: 2,
    });
    const payments = await database.query<{ amount: string; transaction_id: string }>(
      'SELECT amount, transaction_id FROM npp_payments ORDER BY amount',
    );
    expect(payments.map((p) => p.amount)).toEqual(['42', '60', '125.5']);
    expect(payments.every((p) => p.transaction_id.startsWith('SBX'))).toBe(true);
    expect(await database.count('credit_rejections')).toBe(3);
    expect(await database.count('quarantined_deliveries')).toBe(0);
  });

  it('when the receiver is not running, then the demo says so and exits 2', async () => {
    const { url } = await startTestSandbox();
    const lines: string[] = [];
    const code = await toolExitCode(
      runDemo({
        sandboxUrl: url,
        apiKey: CREDENTIALS.apiKey,
        receiver: 'http://127.0.0.1:1',
        secret: SECRET,
        print: (line) => lines.push(line),
      }),
      'demo failed',
      (line) => lines.push(line),
    );
    expect(code).toBe(2);
    expect(lines.join('\n')).toContain('no receiver at http://127.0.0.1:1');
  });
});
