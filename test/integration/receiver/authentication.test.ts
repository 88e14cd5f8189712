import { beforeAll, describe, expect, it } from 'vitest';
import type { SigningKeySource } from '../../../src/receiver/verification/key-source.ts';
import { sendDelivery } from '../../support/deliveries.ts';
import { nppPayment } from '../../support/sample-bodies.ts';
import { generateSigningKeyPair, signBody, type SigningKeyPair } from '../../support/signing.ts';
import { buildTestApp } from '../../support/test-app.ts';
import { useTestbed } from '../../support/testbed.ts';

const SECRET = 'Basic Rjc0MjYxOkNvcnJlY3QtSG9yc2UtQmF0dGVyeQ==';
const NEXT_SECRET = 'Basic TmV4dC1Sb3RhdGVkLVNlY3JldA==';

const bed = useTestbed();
let stranger: SigningKeyPair;
beforeAll(async () => {
  stranger = await generateSigningKeyPair();
});

describe('shared secret (check 2)', () => {
  const app = () =>
    buildTestApp({
      db: bed.database.db,
      publicKey: bed.signer.publicKey,
      secrets: [SECRET, NEXT_SECRET],
    });

  it('when the Authorisation header is missing, then 401 and nothing is stored', async () => {
    const res = await sendDelivery(app().app, {
      body: nppPayment(),
      signWith: bed.signer.privateKey,
    });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({
      status: 'Unauthorised',
      statusDescription: expect.any(String),
    });
    await bed.expectNothingStored();
  });

  it('when the secret is wrong (even a prefix of the right one), then 401 and nothing is stored', async () => {
    for (const secret of ['Basic wrong', SECRET.slice(0, -1), `${SECRET}x`, '']) {
      const res = await sendDelivery(app().app, {
        body: nppPayment(),
        signWith: bed.signer.privateKey,
        secret,
      });
      expect(res.status, secret).toBe(401);
    }
    await bed.expectNothingStored();
  });

  it('when the secret is sent as Authorization (the API reference spelling), then it is accepted', async () => {
    const res = await sendDelivery(app().app, {
      body: nppPayment(),
      signWith: bed.signer.privateKey,
      secret: SECRET,
      authHeader: 'Authorization',
    });
    expect(res.status).toBe(200);
    expect(await bed.database.count('webhook_deliveries')).toBe(1);
  });

  it('when either of two configured secrets is sent (rotation), then both are accepted', async () => {
    for (const secret of [SECRET, NEXT_SECRET]) {
      const res = await sendDelivery(app().app, {
        body: nppPayment(),
        signWith: bed.signer.privateKey,
        secret,
      });
      expect(res.status).toBe(200);
    }
    expect(await bed.database.count('webhook_deliveries')).toBe(2);
  });

  it('when no secret is configured, then the check is skipped', async () => {
    const { app: open } = buildTestApp({ db: bed.database.db, publicKey: bed.signer.publicKey });
    const res = await sendDelivery(open, { body: nppPayment(), signWith: bed.signer.privateKey });
    expect(res.status).toBe(200);
  });

  it('when the secret is right, then it never appears in a log line or the response', async () => {
    const built = app();
    const res = await sendDelivery(built.app, {
      body: nppPayment(),
      signWith: bed.signer.privateKey,
      secret: SECRET,
    });
    await sendDelivery(built.app, {
      body: nppPayment(),
      signWith: bed.signer.privateKey,
      secret: 'Basic nope',
    });
    expect(res.status).toBe(200);
    expect(built.logText()).not.toContain('Rjc0MjYx');
    expect(JSON.stringify(res.body)).not.toContain('Rjc0MjYx');
    const [stored] = await bed.database.query<{ headers: Record<string, string> }>(
      'SELECT headers FROM webhook_deliveries',
    );
    expect(stored?.headers).not.toHaveProperty('authorisation');
  });
});

describe('signature (check 4)', () => {
  const app = () => buildTestApp({ db: bed.database.db, publicKey: bed.signer.publicKey });

  it('when the signature header is missing, then 401 and nothing is stored', async () => {
    const res = await sendDelivery(app().app, { body: nppPayment() });
    expect(res.status).toBe(401);
    await bed.expectNothingStored();
  });

  it('when the body was signed by another key, then 401 and nothing is stored', async () => {
    const res = await sendDelivery(app().app, {
      body: nppPayment(),
      signWith: stranger.privateKey,
    });
    expect(res.status).toBe(401);
    await bed.expectNothingStored();
  });

  it('when one byte of the signed body changes, then 401 and nothing is stored', async () => {
    const body = JSON.stringify(nppPayment({ Amount: 10 }));
    const signature = signBody(body, bed.signer.privateKey);
    const res = await sendDelivery(app().app, { body: body.replace('10', '90'), signature });
    expect(res.status).toBe(401);
    await bed.expectNothingStored();
  });

  it('when the body is re-serialised JSON of the signed body, then 401 (the raw bytes are what count)', async () => {
    const body = JSON.stringify(nppPayment(), null, 2);
    const signature = signBody(body, bed.signer.privateKey);
    const res = await sendDelivery(app().app, {
      body: JSON.stringify(JSON.parse(body)),
      signature,
    });
    expect(res.status).toBe(401);
  });

  it('when the signature is garbage, then 401 and nothing is stored', async () => {
    for (const signature of ['not base64 at all!', 'AAAA', '====']) {
      const res = await sendDelivery(app().app, { body: nppPayment(), signature });
      expect(res.status, signature).toBe(401);
    }
    await bed.expectNothingStored();
  });

  it('when the base64 signature has line breaks and spaces inside, then it verifies', async () => {
    const body = JSON.stringify(nppPayment());
    const plain = signBody(body, bed.signer.privateKey);
    const wrapped = `${plain.slice(0, 40)} ${plain.slice(40, 100)}\t${plain.slice(100)}`;
    const res = await sendDelivery(app().app, { body, signature: wrapped });
    expect(res.status).toBe(200);
  });

  it('when a signature fails, then the signature value is not logged', async () => {
    const built = app();
    const signature = signBody('something else', bed.signer.privateKey);
    await sendDelivery(built.app, { body: nppPayment(), signature });
    expect(built.logText()).not.toContain(signature.slice(0, 24));
    expect(built.logs.find((line) => line.outcome === 'unauthorised')).toMatchObject({
      status: 401,
    });
  });
});

describe('no signing key obtainable', () => {
  const noKey: SigningKeySource = {
    current: () => undefined,
    ensure: () => Promise.resolve(undefined),
    refreshAfterFailure: () => Promise.resolve(undefined),
    start: async () => {},
    stop: () => {},
  };

  it('when no key can be had, then 503 (the platform retries) and nothing is stored', async () => {
    const { app } = buildTestApp({ db: bed.database.db, keys: noKey });
    const res = await sendDelivery(app, { body: nppPayment(), signWith: bed.signer.privateKey });
    expect(res.status).toBe(503);
    expect(res.body.status).toBe('ServiceUnavailable');
    await bed.expectNothingStored();
  });

  it('when the shared secret is wrong and no key is held, then 401 (the secret is checked first)', async () => {
    const { app } = buildTestApp({ db: bed.database.db, keys: noKey, secrets: [SECRET] });
    const res = await sendDelivery(app, {
      body: nppPayment(),
      signWith: bed.signer.privateKey,
      secret: 'x',
    });
    expect(res.status).toBe(401);
  });
});
