import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerHex } from '../../../src/lib/platform-key.ts';
import { parsePublicKey } from '../../../src/receiver/verification/public-key.ts';
import { captureFilesAt, loadCaptureFile } from '../../../tools/capture/capture-files.ts';
import { freePort } from '../../../tools/common/free-port.ts';
import { answers, runMain, runScript, waitFor } from '../../support/receiver-process.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * The documented replay of the committed fixtures (docs/tools.md): a receiver started with
 * SIGNING_KEY="$(cat test/fixtures/keys/captured-sender.public.pem)", then `npm run replay` of
 * test/fixtures/captured. The key file must be usable as it is.
 */

const KEY_FILE = 'test/fixtures/keys/captured-sender.public.pem';
const FIXTURES = 'test/fixtures/captured';
/** What `"$(cat file)"` gives: the file less its trailing newlines. */
const catted = () => readFileSync(KEY_FILE, 'utf8').replace(/\n+$/, '');

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

describe('the fixtures key file', () => {
  it('when read as the documented SIGNING_KEY, then the receiver parses it, and it is the key every fixture names', async () => {
    const key = await parsePublicKey(catted());
    const fixtures = captureFilesAt(FIXTURES).map(loadCaptureFile);

    expect(fixtures.length).toBeGreaterThan(10);
    for (const fixture of fixtures) {
      expect(fixture.ok && fixture.delivery.publicKey, fixture.file).toBe(providerHex(key));
    }
  });

  it('when the receiver is started with it as documented and the fixtures are replayed, then every answer is as expected', async () => {
    const port = await freePort();
    const receiver = runMain('serve', {
      DATABASE_URL: database.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      METRICS_PORT: String(await freePort()),
      SIGNING_KEY: catted(),
      ALLOW_NO_WEBHOOK_SECRET: 'true',
      LOG_LEVEL: 'warn',
    });
    try {
      await waitFor(
        async () =>
          (await answers(`http://127.0.0.1:${port}/readyz`)) || receiver.child.exitCode !== null,
        'the receiver to be ready',
        60_000,
      );
      expect(receiver.child.exitCode, receiver.output()).toBeNull();

      const replay = runScript(
        'tools/capture/replay-cli.ts',
        {},
        {
          args: [FIXTURES, '--url', `http://127.0.0.1:${port}`],
        },
      );
      const code = await replay.exited;

      expect(code, replay.output()).toBe(0);
      expect(replay.output()).toMatch(
        /\d+ replayed to http:\/\/127\.0\.0\.1:\d+: \d+ as expected, 0 different/,
      );
    } finally {
      receiver.child.kill('SIGTERM');
      await receiver.exited;
    }
  }, 90_000);
});
