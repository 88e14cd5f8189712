import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyBytes, bodyField } from '../../../src/capture/capture-body.ts';
import {
  CapturedDeliveryError,
  parseCapturedDelivery,
  readCapturedDelivery,
  serialiseCapturedDelivery,
  type CapturedDelivery,
} from '../../../src/capture/captured-delivery.ts';

const valid = (): CapturedDelivery => ({
  formatVersion: 1,
  description: 'a payment',
  source: 'capture',
  capturedAt: '2026-11-22T01:00:00.000Z',
  eventName: 'NPPReceivePayment',
  headers: { 'content-type': 'application/json', webhookid: '1', 'verification-signature': 'c2ln' },
  body: '{"TransactionId":"T1","Amount":1}',
  publicKey: '3082010A',
  expected: {
    status: 200,
    outcome: 'stored',
    modelled: true,
    rows: {
      webhook_deliveries: 1,
      npp_payments: 1,
      payto_payments: 0,
      credit_rejections: 0,
      conflicts: 0,
      quarantined_deliveries: 0,
    },
  },
});

function withoutBody(): Omit<CapturedDelivery, 'body' | 'bodyBase64'> {
  const file: Partial<CapturedDelivery> = valid();
  delete file.body;
  return file as Omit<CapturedDelivery, 'body' | 'bodyBase64'>;
}

function problemsOf(json: unknown): readonly string[] {
  try {
    readCapturedDelivery(json);
    return [];
  } catch (error) {
    if (error instanceof CapturedDeliveryError) return error.problems;
    throw error;
  }
}

describe('readCapturedDelivery', () => {
  it('when the file follows every rule, then it is read unchanged', () => {
    expect(readCapturedDelivery(valid())).toEqual(valid());
  });

  it.each<[string, (c: Record<string, unknown>) => void, RegExp]>([
    ['another format version', (c) => (c.formatVersion = 2), /^formatVersion: /],
    ['an unknown field', (c) => (c.note = 'x'), /Unrecognized key.*note/],
    ['both bodies', (c) => (c.bodyBase64 = 'AA=='), /^body: exactly one of body and bodyBase64/],
    ['no body at all', (c) => delete c.body, /^body: exactly one/],
    [
      'an Authorisation header',
      (c) => ((c.headers as Record<string, string>).authorisation = 'Basic x'),
      /^headers\.authorisation: credentials are never recorded/,
    ],
    [
      'a Host header',
      (c) => ((c.headers as Record<string, string>).host = 'x'),
      /^headers\.host: transport headers/,
    ],
    [
      'an upper-case header name',
      (c) => ((c.headers as Record<string, string>).Webhookid = '1'),
      /^headers\.Webhookid: header names are lower-case/,
    ],
    [
      'a line break in a header value',
      (c) => ((c.headers as Record<string, string>).webhookid = '1\r\n2'),
      /^headers\.webhookid: a header value cannot hold CR/,
    ],
    [
      'a status that is not its outcome',
      (c) => ((c.expected as Record<string, unknown>).status = 400),
      /^expected: outcome stored is answered 200/,
    ],
    [
      'an unknown outcome',
      (c) => ((c.expected as Record<string, unknown>).outcome = 'kept'),
      /^expected\.outcome: /,
    ],
    [
      'an event name with a dash',
      (c) => (c.eventName = 'NPP-Receive'),
      /^eventName: must be letters and digits/,
    ],
    [
      'a capture time with a zone offset',
      (c) => (c.capturedAt = '2026-11-22T01:00:00+10:00'),
      /^capturedAt: /,
    ],
  ])(
    'when the file has %s, then it is refused with a problem naming the field',
    (_what, change, problem) => {
      const file = valid() as unknown as Record<string, unknown>;
      change(file);
      expect(problemsOf(file)).toEqual(expect.arrayContaining([expect.stringMatching(problem)]));
    },
  );

  it('when modelled is given for a quarantined delivery, then it is refused', () => {
    const file = {
      ...valid(),
      expected: { ...valid().expected, status: 400, outcome: 'quarantined' },
    };
    expect(problemsOf(file)).toEqual([
      'expected.modelled: modelled only applies to a stored delivery',
    ]);
  });

  it('when bodyBase64 holds UTF-8 text or is not canonical, then it is refused', () => {
    const rest = withoutBody();
    expect(problemsOf({ ...rest, bodyBase64: Buffer.from('{}').toString('base64') })).toEqual([
      'bodyBase64: these bytes are UTF-8 text: record them as body, not bodyBase64',
    ]);
    expect(problemsOf({ ...rest, bodyBase64: '/w' })).toEqual(
      expect.arrayContaining([expect.stringMatching(/^bodyBase64: /)]),
    );
  });

  it('when the text is not JSON, then parseCapturedDelivery says so', () => {
    expect(() => parseCapturedDelivery('{')).toThrow(/not JSON/);
  });
});

describe('serialiseCapturedDelivery', () => {
  it('when the same delivery is given with fields and headers in another order, then the text is the same', () => {
    const c = valid();
    const shuffled = {
      expected: {
        rows: {
          quarantined_deliveries: 0,
          conflicts: 0,
          credit_rejections: 0,
          payto_payments: 0,
          npp_payments: 1,
          webhook_deliveries: 1,
        },
        modelled: true,
        outcome: 'stored',
        status: 200,
      },
      publicKey: c.publicKey,
      body: c.body,
      headers: {
        'verification-signature': 'c2ln',
        webhookid: '1',
        'content-type': 'application/json',
      },
      eventName: c.eventName,
      capturedAt: c.capturedAt,
      source: c.source,
      description: c.description,
      formatVersion: 1,
    } as CapturedDelivery;

    const text = serialiseCapturedDelivery(c);
    expect(serialiseCapturedDelivery(shuffled)).toBe(text);
    expect(Object.keys(JSON.parse(text))).toEqual([
      'formatVersion',
      'description',
      'source',
      'capturedAt',
      'eventName',
      'headers',
      'body',
      'publicKey',
      'expected',
    ]);
    expect(text.endsWith('}\n')).toBe(true);
  });

  it('when the body holds a BOM, a zero-width space and a C1 control, then they are written as \\u escapes and read back the same', () => {
    const c = { ...valid(), body: '\ufeff{"A":"x\u200by\u0085"}' } as CapturedDelivery;
    const text = serialiseCapturedDelivery(c);
    expect(text).toContain('"\\ufeff{\\"A\\":\\"x\\u200by\\u0085\\"}"');
    expect(parseCapturedDelivery(text).body).toBe(c.body);
  });

  it('when the delivery breaks a rule, then nothing is serialised', () => {
    const c = valid();
    expect(() =>
      serialiseCapturedDelivery({ ...c, headers: { ...c.headers, authorization: 'Bearer x' } }),
    ).toThrow(CapturedDeliveryError);
  });

  it('when any bytes are recorded, then reading the file back gives exactly those bytes', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 64 }),
        fc.string({ unit: 'binary', maxLength: 32 }),
        (raw, text) => {
          for (const bytes of [Buffer.from(raw), Buffer.from(text, 'utf8')]) {
            const file = serialiseCapturedDelivery({
              ...withoutBody(),
              ...bodyField(bytes),
            });
            expect(bodyBytes(parseCapturedDelivery(file)).equals(bytes)).toBe(true);
          }
        },
      ),
    );
  });
});
