import { createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startKeyServer } from '../../common/key-server.ts';
import { parseCapturedDelivery } from '../../../src/capture/index.ts';
import { providerHex } from '../../../src/lib/platform-key.ts';
import { keyFingerprint } from '../../../src/receiver/signature.ts';
import { sendDelivery } from '../../../test/support/deliveries.ts';
import { runScript } from '../../../test/support/receiver-process.ts';
import { nppPayment } from '../../../test/support/sample-bodies.ts';
import { buildTestApp } from '../../../test/support/test-app.ts';
import { useTestbed } from '../../../test/support/testbed.ts';
import { freePort } from '../../common/free-port.ts';
import { loadCaptureFile } from '../capture-files.ts';
import { keyText } from '../export-keys.ts';
import { replayCaptures } from '../replay-deliveries.ts';

/**
 * `npm run export-quarantine` as a laptop runs it: no key given, no network to the platform. The
 * key endpoint is pointed at a port where nothing listens, standing in for the production URL a
 * fresh clone would try.
 */

const bed = useTestbed();
const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/captured/', import.meta.url));
const FIXTURE_KEY_FILE = fileURLToPath(
  new URL('../../../test/fixtures/keys/captured-sender.public.pem', import.meta.url),
);
const FIXTURE_KEY = createPublicKey(readFileSync(FIXTURE_KEY_FILE));

let dir: string;
let deadKeyUrl: string;
const servers: Server[] = [];
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'export-cli-'));
  deadKeyUrl = `http://127.0.0.1:${await freePort()}/public/v1/certificate/public-key`;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A fixture the receiver refuses, replayed to a receiver trusting the fixtures' key. */
async function quarantineWithFixtureKey(): Promise<void> {
  const server = buildTestApp({
    db: bed.database.db,
    publicKey: FIXTURE_KEY,
    secrets: [],
  }).app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  const file = path.join(FIXTURES, 'npp-receive-payment.refused-amount-ten.json');
  const [result] = await replayCaptures([loadCaptureFile(file)], {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  });
  expect(result?.status).toBe(400);
}

/** A delivery signed by a key no file on this machine holds (the testbed's platform key). */
async function quarantineWithOtherKey(): Promise<void> {
  const built = buildTestApp({ db: bed.database.db, publicKey: bed.signer.publicKey, secrets: [] });
  await sendDelivery(built.app, {
    signWith: bed.signer.privateKey,
    body: nppPayment({ Amount: 'ten' }),
  }).expect(400);
}

async function exportCli(args: string[], env: Record<string, string> = {}) {
  const out = mkdtempSync(path.join(dir, 'out-'));
  const run = runScript(
    'tools/capture/export-quarantine-cli.ts',
    {
      DATABASE_URL: bed.database.url,
      SIGNING_KEY_URL: deadKeyUrl,
      SIGNING_KEY_ALLOW_HTTP: 'true',
      ...env,
    },
    { args: ['--out', out, ...args] },
  );
  const code = await run.exited;
  return { code, output: run.output(), files: readdirSync(out).map((f) => path.join(out, f)) };
}

describe('export-quarantine out of the box', () => {
  it('when the rows were verified with the fixtures key and no key is given, then they are exported with it and the platform is not asked', async () => {
    await quarantineWithFixtureKey();

    const { code, output, files } = await exportCli([]);

    expect(code, output).toBe(0);
    expect(output).toContain('1 written, 0 skipped');
    expect(output).not.toContain(deadKeyUrl);
    const capture = parseCapturedDelivery(readFileSync(files[0] as string, 'utf8'));
    expect(capture.publicKey).toBe(providerHex(FIXTURE_KEY));
  }, 60_000);

  it('when no key at hand verified the rows and the key endpoint cannot be reached, then it says where it looked and how to give a key, and exits 2', async () => {
    await quarantineWithOtherKey();
    const fingerprint = keyFingerprint(bed.signer.publicKey).slice(0, 16);

    const { code, output, files } = await exportCli([]);

    expect(code, output).toBe(2);
    expect(files).toEqual([]);
    expect(output).toContain(`no key for 1 row(s) (verified by ${fingerprint}…). Tried:`);
    expect(output).toContain(
      'test/fixtures/keys/captured-sender.public.pem (the committed fixtures): key',
    );
    expect(output).toMatch(
      new RegExp(
        `the platform's key endpoint ${deadKeyUrl} \\(SIGNING_KEY_URL / PROVIDER_ENV\\): fetch failed.*ECONNREFUSED`,
      ),
    );
    expect(output).toContain('--public-key <hex, PEM or file>');
    expect(output).toContain('--key-file <PEM file, public or private>');
    expect(output).toContain('SIGNING_KEY=<hex or PEM>');
    expect(output).not.toContain('export failed');
  }, 60_000);

  it('when the key is given as a file with comment lines, or by SIGNING_KEY, or served by the key endpoint, then the rows are exported', async () => {
    await quarantineWithOtherKey();
    const pem = bed.signer.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const commented = path.join(dir, 'platform-key.pem');
    writeFileSync(commented, `# the platform's key, fetched 2026-11-24\n${pem}# end\n`);
    const keyServer = await startKeyServer(bed.signer.publicKey, { host: '127.0.0.1', port: 0 });

    try {
      const fromFile = await exportCli(['--key-file', commented]);
      const fromOption = await exportCli(['--public-key', commented]);
      const fromPrivate = await exportCli(['--key-file', writePrivateKey()]);
      const fromEnv = await exportCli([], { SIGNING_KEY: providerHex(bed.signer.publicKey) });
      const fetched = await exportCli([], { SIGNING_KEY_URL: keyServer.url });

      for (const run of [fromFile, fromOption, fromPrivate, fromEnv, fetched]) {
        expect(run.code, run.output).toBe(0);
        expect(run.files).toHaveLength(1);
      }
    } finally {
      await keyServer.close();
    }
  }, 60_000);

  it('when the key given does not verify a row, then that row is skipped and the exit code is 1', async () => {
    await quarantineWithFixtureKey();
    await quarantineWithOtherKey();

    const { code, output, files } = await exportCli(['--key-file', FIXTURE_KEY_FILE]);

    expect(code, output).toBe(1);
    expect(files).toHaveLength(1);
    expect(output).toMatch(/skipped {2}\d+: the key given \(.*\) does not verify it/);
  }, 60_000);
});

describe('key text', () => {
  it('when a key file has comment lines around one PEM block or hex, then only the key is kept; several blocks are left for the parser to refuse', () => {
    const pem = '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----';
    expect(keyText(`TEST-ONLY key. Not a real key.\n${pem}\ntrailing note\n`)).toBe(pem);
    expect(keyText('# fetched 2026-11-24\n3082010A0282\n')).toBe('3082010A0282');
    const two = `${pem}\n${pem}`;
    expect(keyText(two)).toBe(two);
  });
});

function writePrivateKey(): string {
  const file = path.join(dir, 'simulator-key.pem');
  writeFileSync(file, bed.signer.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), {
    mode: 0o600,
  });
  return file;
}
