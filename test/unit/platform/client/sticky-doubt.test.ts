import { afterEach, describe, expect, it } from 'vitest';
import type { Endpoint } from '../../../../src/platform/client/endpoints.ts';
import { createTransport } from '../../../../src/platform/client/transport.ts';
import {
  sendJson,
  startScriptedServer,
  type ScriptedServer,
} from '../../../support/scripted-server.ts';

/**
 * Doubt is sticky across a call's attempts: once one attempt may have reached the platform and
 * been acted on (5xx, a 2xx we cannot read or that is not Ok), a later definite refusal (429,
 * 408, 400) cannot make the call "refused". Real HTTP to 127.0.0.1, scripted answers.
 */
const OK = { status: 'Ok', statusDescription: 'Operation completed successfully' };

const write: Endpoint = {
  name: 'refund',
  method: 'POST',
  host: 'base',
  auth: 'api-key',
  retry: true,
  answer: 'envelope',
  accept: 'application/json',
  maxResponseBytes: 4096,
};

let server: ScriptedServer | undefined;
afterEach(() => server?.close());

type Answer = number | 'html' | 'not-ok' | 'big' | 'ok';

async function callWith(answers: Answer[]) {
  server = await startScriptedServer((_req, res) => {
    const answer = answers.shift() ?? 'ok';
    if (answer === 'html') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
    } else if (answer === 'not-ok') sendJson(res, 200, { status: 'Error' });
    else if (answer === 'big') sendJson(res, 200, { ...OK, pad: 'x'.repeat(10_000) });
    else if (answer === 'ok') sendJson(res, 200, { ...OK, transactionId: 7 });
    else sendJson(res, answer, { status: 'Fail', statusDescription: `answered ${answer}` });
  });
  const transport = createTransport({
    baseUrl: server.url,
    authUrl: server.url,
    apiKey: 'key-0123456789',
    mAccount: undefined,
    timeoutMs: 2000,
    retry: { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 1 },
    fetch,
    sleep: async () => {},
    random: () => 0,
  });
  return transport.call(write, { path: '/receivables/v2/refund', body: { a: 1 } });
}

describe('sticky doubt across attempts', () => {
  for (const later of [429, 408, 400] as const) {
    it(`when a 500 is followed by ${later} on the retries, then the outcome stays unknown`, async () => {
      const error = await callWith([500, later, later, later]).catch((e: unknown) => e);
      expect(error).toMatchObject({ httpStatus: later, outcomeUnknown: true });
      expect(server?.requests.length).toBeGreaterThanOrEqual(2);
    });
  }

  it('when every attempt is a definite refusal (429 then 400), then the outcome is known: refused', async () => {
    const error = await callWith([429, 429, 400]).catch((e: unknown) => e);
    expect(error).toMatchObject({ httpStatus: 400, outcomeUnknown: false, attempts: 3 });
  });

  it('when a 2xx is an HTML page, then it is unreadable, in doubt, and asked again', async () => {
    const result = await callWith(['html', 'ok']);
    expect(result.httpStatus).toBe(200);
    expect(server?.requests).toHaveLength(2);
    const error = await callWith(['html', 'html', 'html', 'html']).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'invalid-response', outcomeUnknown: true, attempts: 4 });
  });

  it('when a 2xx is larger than the cap and then 400, then the outcome stays unknown', async () => {
    const error = await callWith(['big', 400, 400, 400]).catch((e: unknown) => e);
    expect(error).toMatchObject({ httpStatus: 400, outcomeUnknown: true });
  });

  it('when a 2xx says a status other than Ok, then the outcome is unknown and it is not repeated', async () => {
    const error = await callWith(['not-ok']).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'status', outcomeUnknown: true, attempts: 1 });
  });
});
