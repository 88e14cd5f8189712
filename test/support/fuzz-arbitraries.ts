import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import type { KeyObject } from 'node:crypto';
import fc from 'fast-check';
import { signBody } from './signing.ts';

/**
 * fast-check arbitraries for hostile deliveries: bodies, headers, signatures, secrets and event
 * names. Values are plain data ("recipes") wherever the real value depends on the body or on the
 * test's keys, so a counterexample prints readably and replays from its seed.
 */

/** A request body; `valid` is true only for an untouched, schema-valid payload of its event. */
export interface FuzzBody {
  readonly kind: string;
  readonly bytes: Buffer;
  readonly valid: boolean;
}

function fuzzBody(kind: string, bytes: Buffer, valid = false): FuzzBody {
  const shown = bytes.toString('latin1');
  const preview = shown.length > 300 ? `${shown.slice(0, 300)}… (${bytes.length} bytes)` : shown;
  return {
    kind,
    bytes,
    valid,
    [fc.toStringMethod]: () => `${kind}${valid ? ' (valid)' : ''}: ${JSON.stringify(preview)}`,
  } as FuzzBody;
}

// ---- JSON trees that may hold text JSON.stringify cannot produce (1e999999, 400 digits) ----

class RawJson {
  constructor(readonly text: string) {}
}
type Tree = null | boolean | number | string | RawJson | Tree[] | { [key: string]: Tree };

const raw = (text: string) => new RawJson(text);

function serialise(tree: Tree): string {
  if (tree instanceof RawJson) return tree.text;
  if (Array.isArray(tree)) return `[${tree.map(serialise).join(',')}]`;
  if (tree !== null && typeof tree === 'object') {
    const members = Object.entries(tree).map(([k, v]) => `${JSON.stringify(k)}:${serialise(v)}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(tree);
}

/** Numbers Postgres' numeric (and so jsonb) can hold, however odd for JSON.parse. */
const storableNumber: fc.Arbitrary<Tree> = fc.oneof(
  fc.double(),
  fc.integer({ min: -400, max: 400 }).map((e) => raw(`1e${e}`)),
  fc.integer({ min: 16, max: 400 }).map((n) => raw('9'.repeat(n))),
  fc.integer({ min: 1, max: 400 }).map((n) => raw(`-0.${'0'.repeat(n)}1`)),
  fc.constantFrom<Tree>(raw('-0'), raw('9007199254740993'), raw('1E+308'), raw('1e-1000')),
);

/** Numbers beyond Postgres numeric: 10^131072 and up, or below 10^-16383. */
const unstorableNumber: fc.Arbitrary<Tree> = fc.oneof(
  fc.integer({ min: 131_072, max: 10_000_000 }).map((e) => raw(`1e${e}`)),
  fc.integer({ min: 16_384, max: 10_000_000 }).map((e) => raw(`-2.5E-${e}`)),
  fc.integer({ min: 131_073, max: 140_000 }).map((n) => raw('7'.repeat(n))),
  fc.integer({ min: 16_384, max: 20_000 }).map((n) => raw(`0.${'0'.repeat(n)}1`)),
);

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));

const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.tuple(fc.string(), fc.string()).map(([a, b]) => `${a}\u0000${b}`),
  fc.tuple(fc.string(), loneSurrogate, fc.string()).map(([a, s, b]) => `${a}${s}${b}`),
  fc.integer({ min: 41, max: 5000 }).map((n) => 'x'.repeat(n)),
  fc.constantFrom('', ' ', 'null', '10.00001', '1,000.00', ' 10 ', '1e3', '0x10', 'NaN', '-'),
  fc.constantFrom('2023-02-29T00:00:00', '31/12/2023 13:00:00 PM', '2023-08-11T14:19:16+25:00'),
  fc.constantFrom('\uFEFF', '\u2028', '\uFFFD', '😀', '\u00e9'),
);

const hostileScalar: fc.Arbitrary<Tree> = fc.oneof(
  storableNumber,
  hostileString,
  fc.constantFrom<Tree>(null, true, false, [], {}, [[[]]], { '': { '\u0000': null } }),
  fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Tree>,
  // Deeper than the receiver keeps as jsonb (500), and far deeper than any real payload.
  fc.integer({ min: 1, max: 20_000 }).map((n) => raw(`${'['.repeat(n)}${']'.repeat(n)}`)),
);

// ---- valid payloads (strictly: each is accepted by its event's schema) ----

const identifier = fc.stringMatching(/^[A-Z][A-Z0-9]{5,15}$/);
const amount = fc.oneof(
  fc.constantFrom<Tree>('10.0000', '0.01', '-3.2500', '999999999999999.9999', 0),
  fc.integer({ min: 0, max: 100_000_000 }).map((cents) => cents / 100),
);
const dateTime = fc.constantFrom<Tree>(
  '2023-08-11T14:19:16',
  '2023-08-11T14:19:16.1234567',
  '20/10/2020 12:00:01 AM',
  '',
  null,
);
const text = fc.oneof(fc.string({ maxLength: 30 }), fc.constant(null));

const nppPayment = fc.record({
  TransactionId: identifier,
  Amount: amount,
  DateTime: dateTime,
  ReceiptNumber: fc.oneof(fc.nat(), fc.stringMatching(/^\d{1,12}$/)),
  RemitterName: text,
  PaymentDescription: text,
}) as fc.Arbitrary<Record<string, Tree>>;

const rejection = fc.record({
  id: identifier,
  amount,
  batchId: fc.nat(),
  dateTime,
  transactionType: text,
}) as fc.Arbitrary<Record<string, Tree>>;

const MODELLED_EVENTS = [
  'NPPReceivePayment',
  'InboundDirectCreditRejections',
  'NPPCreditRejections',
] as const;

/** A well-formed event name: a modelled one in any letter case, or an unmodelled one. */
export const wellFormedEventName: fc.Arbitrary<string> = fc.oneof(
  fc.mixedCase(fc.constantFrom(...MODELLED_EVENTS)),
  fc.stringMatching(/^[A-Za-z0-9]{1,64}$/),
);

/** A payload tree that the named event's schema accepts. */
function validTreeFor(eventName: string): fc.Arbitrary<Tree> {
  switch (eventName.toLowerCase()) {
    case 'nppreceivepayment':
      return nppPayment;
    case 'inbounddirectcreditrejections':
      return fc.array(rejection, { maxLength: 3 });
    case 'nppcreditrejections':
      return fc.oneof(fc.array(rejection, { maxLength: 3 }), rejection);
    default:
      return fc.oneof(nppPayment, fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Tree>);
  }
}

/** An untouched, schema-valid body for `eventName`. */
export function validBody(eventName: string): fc.Arbitrary<FuzzBody> {
  return validTreeFor(eventName).map((t) => fuzzBody('valid', Buffer.from(serialise(t)), true));
}

// ---- malformed bodies ----

function withFieldsReplaced(): fc.Arbitrary<Tree> {
  const replacements = fc.array(fc.tuple(fc.nat(), hostileScalar), { maxLength: 3 });
  return fc.tuple(fc.oneof(nppPayment, rejection), replacements).map(([payload, replacements]) => {
    const keys = Object.keys(payload);
    const copy: Record<string, Tree> = { ...payload };
    for (const [at, replacement] of replacements) copy[keys[at % keys.length] ?? 'x'] = replacement;
    return copy;
  });
}

/** Keys that mean something to JavaScript objects; a payload must stay plain data. */
const prototypeKeys: fc.Arbitrary<Tree> = nppPayment.map((payment) => {
  const text = serialise(payment);
  return raw(
    `{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},${text.slice(1)}`,
  );
});

const wrongShape: fc.Arbitrary<Tree> = fc.oneof(
  nppPayment.map((payment) => raw(`{"__proto__":${serialise(payment)}}`)),
  fc.constantFrom<Tree>(null, true, 0, 'text', [], {}, [[]], raw('1e999')),
  nppPayment.map((payment) => [payment]),
  fc.array(nppPayment, { minLength: 2, maxLength: 3 }),
  rejection.map((record) => ({ records: [record] })),
);

const deepNesting: fc.Arbitrary<Buffer> = fc
  .tuple(fc.integer({ min: 1, max: 20_000 }), fc.constantFrom('[', '{"a":'), fc.boolean())
  .map(([depth, open, balanced]) => {
    const close = open === '[' ? ']' : '}';
    const inner = open === '[' ? '' : '1';
    const closing = close.repeat(balanced ? depth : Math.floor(depth / 2));
    return Buffer.from(`${open.repeat(depth)}${inner}${closing}`);
  });

/** Byte-level damage to a JSON text: the shapes a broken proxy or a hostile sender produce. */
function damaged(source: fc.Arbitrary<Buffer>): fc.Arbitrary<Buffer> {
  const byte = fc.integer({ min: 0, max: 255 });
  return fc
    .tuple(source, fc.nat(), byte, fc.integer({ min: 0, max: 8 }))
    .map(([bytes, at, value, how]) => {
      const i = bytes.length === 0 ? 0 : at % bytes.length;
      const cut = (start: number, end: number) => bytes.subarray(start, end);
      const mutations: Array<() => Buffer> = [
        () => cut(0, i), // truncated
        () => Buffer.concat([cut(0, i), cut(i + 1, bytes.length)]), // a byte deleted
        () => Buffer.concat([cut(0, i), Buffer.from([value]), cut(i, bytes.length)]), // inserted
        () => Buffer.from(bytes).fill(value, i, i + 1), // overwritten
        () => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]), // UTF-8 BOM
        () => Buffer.from(`\uFEFF${bytes.toString('utf8')}`, 'utf16le'), // UTF-16
        () => Buffer.concat([cut(0, i), Buffer.from([0xed, 0xa0, 0x80]), cut(i, bytes.length)]),
        () => Buffer.concat([bytes, Buffer.from([0x00])]), // trailing raw NUL
        () => Buffer.concat([bytes, bytes]), // two documents
      ];
      return (mutations[how] ?? mutations[0]!)();
    });
}

/** Bodies for `eventName`: mostly malformed, some valid; numbers within what Postgres holds. */
export function hostileBody(eventName: string): fc.Arbitrary<FuzzBody> {
  const json = (kind: string, tree: fc.Arbitrary<Tree>) =>
    tree.map((t) => fuzzBody(kind, Buffer.from(serialise(t), 'utf8')));
  const someJson = fc
    .oneof(validTreeFor(eventName), withFieldsReplaced(), wrongShape)
    .map((t) => Buffer.from(serialise(t), 'utf8'));
  return fc.oneof(
    validBody(eventName),
    json('wrong types', withFieldsReplaced()),
    json('extra fields', extraFields()),
    json('wrong shape', wrongShape),
    json('prototype keys', prototypeKeys),
    damaged(someJson).map((bytes) => fuzzBody('damaged', bytes)),
    deepNesting.map((bytes) => fuzzBody('deep', bytes)),
    fc.uint8Array({ maxLength: 512 }).map((bytes) => fuzzBody('random bytes', Buffer.from(bytes))),
    fc.constant(fuzzBody('empty', Buffer.alloc(0))),
  );
}

/** A valid-looking payment with up to three unknown fields of any kind. */
function extraFields(): fc.Arbitrary<Tree> {
  const key = fc.string({ unit: 'binary', maxLength: 12 });
  const extras = fc.dictionary(key, hostileScalar, { maxKeys: 3 });
  return fc.tuple(nppPayment, extras).map(([p, e]) => ({ ...e, ...p }));
}

/**
 * A valid payload with one extra field holding a number Postgres cannot hold. For
 * NPPReceivePayment and unmodelled events (an object gains a field; anything else is wrapped).
 */
export function unstorableButValidBody(eventName: string): fc.Arbitrary<FuzzBody> {
  return fc.tuple(validTreeFor(eventName), unstorableNumber).map(([tree, number]) => {
    const isObject = typeof tree === 'object' && tree !== null && !Array.isArray(tree);
    const withExtra =
      isObject && !(tree instanceof RawJson) ? { ...tree, Extra: number } : [tree, number];
    return fuzzBody('unstorable number', Buffer.from(serialise(withExtra)), true);
  });
}

// ---- event names in the path ----

/** Any text as the event-name path segment, URL-encoded so it always decodes. */
export const encodedEventName: fc.Arbitrary<{ name: string; segment: string }> = fc
  .oneof(
    fc.string({ unit: 'binary', maxLength: 80 }),
    wellFormedEventName,
    fc.stringMatching(/^[A-Za-z0-9]{65,70}$/),
    fc.constantFrom('.', '..', '', ' NPPReceivePayment', 'NPP-Receive', 'a/b', '\u212Aelvin', '٣'),
  )
  .map((name) => ({ name, segment: encodeURIComponent(name) }));

/** A query string after the event name: usually none, sometimes junk a parser must survive. */
export const hostileQuery: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constant('') },
  fc.string({ unit: 'binary', maxLength: 40 }).map((text) => `?${encodeURIComponent(text)}`),
  fc.constantFrom('?%', '?a=%ZZ&b=%E0%A4%A', '?a[b][c]=1&a[b][c]=2', '?__proto__[polluted]=1'),
  fc.constantFrom('?constructor[prototype][polluted]=1', `?${'a=1&'.repeat(1000)}`, '?&&==&'),
);

/** A path segment holding a percent escape that does not decode (or not to UTF-8). */
export const malformedPercentSegment: fc.Arbitrary<string> = fc
  .tuple(
    fc.stringMatching(/^[A-Za-z0-9]{0,8}$/),
    fc.constantFrom('%', '%Z', '%ZZ', '%4', '%E0%A4%A', '%C3%28', '%FF', '%ED%A0%80', '%C0%AF'),
    fc.stringMatching(/^(?:[G-Zg-z][A-Za-z0-9]{0,8})?$/),
  )
  .map(([before, escape, after]) => `${before}${escape}${after}`);

// ---- headers ----

/** A header as sent: undefined is not sent, an array is sent once per item. */
export type HeaderValue = string | string[] | undefined;

/** What the receiver must do with a header: accept it, refuse it (400), or either. */
type Verdict = 'accept' | 'refuse' | 'either';

export interface HeaderChoice {
  value: HeaderValue;
  verdict: Verdict;
}

const choice = (verdict: Verdict, ...values: HeaderValue[]): fc.Arbitrary<HeaderChoice> =>
  fc.constantFrom(...values).map((value) => ({ value, verdict }));

const headerChar = fc
  .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }), fc.constant(9))
  .map((code) => String.fromCharCode(code));

/** Any value HTTP allows in a header field: visible ASCII, space, tab and obs-text. */
const headerText = (maxLength: number) => fc.string({ unit: headerChar, maxLength });

/** `FRESH_WEBHOOK_ID` is replaced by a new valid id when the request is sent. */
export const FRESH_WEBHOOK_ID = 'fresh';

export const webhookIdHeader: fc.Arbitrary<HeaderChoice> = fc.oneof(
  { weight: 12, arbitrary: choice('accept', FRESH_WEBHOOK_ID) },
  choice('refuse', undefined, '', ' ', '9223372036854775808', '99999999999999999999', '-1'),
  choice('refuse', '+1', '1.0', '1e3', '0x1F', '1 2', '1\t2'),
  fc.stringMatching(/^\d{20,30}$/).map((value) => ({ value, verdict: 'refuse' as const })),
  fc.stringMatching(/^\d{1,19}$/).map((value) => ({ value, verdict: 'either' as const })),
  headerText(300).map((value) => ({ value, verdict: 'either' as const })),
  fc
    .array(fc.stringMatching(/^\d{1,19}$/), { minLength: 2, maxLength: 3 })
    .map((value) => ({ value, verdict: 'refuse' as const })),
);

export const contentTypeHeader: fc.Arbitrary<HeaderChoice> = fc.oneof(
  { weight: 12, arbitrary: choice('accept', 'application/json') },
  choice(
    'accept',
    'application/json; charset=utf-8',
    'Application/JSON;Charset="UTF-8"',
    'application/json;charset=utf8;foo=bar',
    'application/vnd.monoova.v1+json',
  ),
  choice('refuse', undefined, '', 'text/plain', 'text/json', 'application/jsonx', '*/*'),
  choice('refuse', 'application/json; charset=latin1', 'application/json; charset=utf-16'),
  choice('refuse', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'),
  headerText(80).map((value) => ({ value, verdict: 'either' as const })),
);

// ---- Content-Encoding ----

export interface EncodingRecipe {
  header: HeaderValue;
  /** How the bytes are actually compressed before sending (none when undefined). */
  compress: 'gzip' | 'deflate' | 'br' | undefined;
}

/** Content-Encoding that matches how the body is compressed. */
export const faithfulEncoding: fc.Arbitrary<EncodingRecipe> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ header: undefined, compress: undefined }) },
  fc.constantFrom<EncodingRecipe>(
    { header: 'identity', compress: undefined },
    { header: 'gzip', compress: 'gzip' },
    { header: 'X-GZIP', compress: 'gzip' },
    { header: 'deflate', compress: 'deflate' },
    { header: 'br', compress: 'br' },
  ),
);

/** Any Content-Encoding, with or without matching compression. */
export const anyEncoding: fc.Arbitrary<EncodingRecipe> = fc.oneof(
  { weight: 4, arbitrary: faithfulEncoding },
  fc.record({
    header: fc.oneof(
      fc.constantFrom<HeaderValue>('gzip', 'deflate', 'br', '', 'gzip, br', 'compress', [
        'gzip',
        'gzip',
      ]),
      headerText(20),
    ),
    compress: fc.constantFrom(undefined, 'gzip' as const),
  }),
);

export function encodeBody(bytes: Buffer, recipe: EncodingRecipe): Buffer {
  switch (recipe.compress) {
    case 'gzip':
      return gzipSync(bytes);
    case 'deflate':
      return deflateSync(bytes);
    case 'br':
      return brotliCompressSync(bytes);
    case undefined:
      return bytes;
  }
}

// ---- Authorisation ----

export type SecretRecipe =
  | { kind: 'right'; which: number; name: 'Authorisation' | 'Authorization'; pad: string }
  | { kind: 'missing' }
  | { kind: 'wrong'; value: string }
  | { kind: 'truncated'; which: number; drop: number }
  | { kind: 'extended'; which: number; extra: string }
  | { kind: 'case-flipped'; which: number }
  | { kind: 'repeated'; which: number };

/** A configured secret, as either spelling, perhaps padded (HTTP strips the padding). */
export const rightSecret: fc.Arbitrary<SecretRecipe> = fc.record({
  kind: fc.constant('right' as const),
  which: fc.nat(),
  name: fc.constantFrom('Authorisation' as const, 'Authorization' as const),
  pad: fc.constantFrom('', '', '', ' ', '\t '),
});

/** Anything that is not a configured secret. */
export const wrongSecret: fc.Arbitrary<SecretRecipe> = fc.oneof(
  fc.constant({ kind: 'missing' as const }),
  headerText(200).map((value) => ({ kind: 'wrong' as const, value })),
  fc.record({
    kind: fc.constant('truncated' as const),
    which: fc.nat(),
    drop: fc.integer({ min: 1, max: 60 }),
  }),
  fc.record({
    kind: fc.constant('extended' as const),
    which: fc.nat(),
    extra: fc.stringMatching(/^[!-~]{1,20}$/),
  }),
  fc.record({ kind: fc.constant('case-flipped' as const), which: fc.nat() }),
  // Sent twice, the two values arrive joined by a comma: no longer the secret.
  fc.record({ kind: fc.constant('repeated' as const), which: fc.nat() }),
);

/** The Authorisation headers a recipe sends; `secrets` must each contain a letter. */
export function secretHeaders(
  recipe: SecretRecipe,
  secrets: readonly string[],
): Record<string, HeaderValue> {
  if (recipe.kind === 'missing') return {};
  if (recipe.kind === 'wrong') return { Authorisation: recipe.value };
  const secret = secrets[recipe.which % secrets.length] ?? '';
  switch (recipe.kind) {
    case 'right':
      return { [recipe.name]: `${recipe.pad}${secret}${recipe.pad}` };
    case 'truncated':
      return { Authorisation: secret.slice(0, Math.max(0, secret.length - recipe.drop)) };
    case 'extended':
      return { Authorisation: `${secret}${recipe.extra}` };
    case 'case-flipped':
      return { Authorisation: [...secret].map(flipCase).join('') };
    case 'repeated':
      return { Authorisation: [secret, secret] };
  }
}

function flipCase(char: string): string {
  const upper = char.toUpperCase();
  return char === upper ? char.toLowerCase() : upper;
}

// ---- Verification-Signature ----

export type SignatureRecipe =
  | { kind: 'valid' }
  | { kind: 'folded'; width: number; fold: string }
  | { kind: 'url-safe' }
  | { kind: 'missing' }
  | { kind: 'wrong'; value: string }
  | { kind: 'truncated'; drop: number }
  | { kind: 'flipped'; at: number; shift: number }
  | { kind: 'untrusted-key' }
  | { kind: 'other-bytes' }
  | { kind: 'repeated' };

/** Signatures by the trusted key over the exact bytes, in every spelling the receiver accepts. */
export const goodSignature: fc.Arbitrary<SignatureRecipe> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'valid' as const }) },
  fc.record({
    kind: fc.constant('folded' as const),
    width: fc.integer({ min: 1, max: 100 }),
    fold: fc.constantFrom(' ', '\t', '  '),
  }),
  fc.constant({ kind: 'url-safe' as const }),
);

/** Anything that is not such a signature. */
export const badSignature: fc.Arbitrary<SignatureRecipe> = fc.oneof(
  fc.constant({ kind: 'missing' as const }),
  fc
    .oneof(fc.base64String({ maxLength: 700 }), headerText(400))
    .map((value) => ({ kind: 'wrong' as const, value })),
  fc.record({ kind: fc.constant('truncated' as const), drop: fc.integer({ min: 1, max: 343 }) }),
  fc.record({
    kind: fc.constant('flipped' as const),
    at: fc.nat(),
    shift: fc.integer({ min: 1, max: 63 }),
  }),
  fc.constantFrom(
    { kind: 'untrusted-key' as const },
    { kind: 'other-bytes' as const },
    { kind: 'repeated' as const },
  ),
);

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The Verification-Signature header a recipe sends for `body` (the bytes before compression). */
export function signatureHeader(
  recipe: SignatureRecipe,
  body: Buffer,
  keys: { trusted: KeyObject; untrusted: KeyObject },
): HeaderValue {
  const valid = signBody(body, keys.trusted);
  switch (recipe.kind) {
    case 'valid':
      return valid;
    case 'folded':
      return valid.replace(new RegExp(`.{${recipe.width}}(?!$)`, 'g'), `$&${recipe.fold}`);
    case 'url-safe':
      return Buffer.from(valid, 'base64').toString('base64url');
    case 'missing':
      return undefined;
    case 'wrong':
      return recipe.value;
    case 'truncated':
      return valid.slice(0, Math.max(0, valid.length - recipe.drop));
    case 'flipped': {
      const at = recipe.at % valid.length;
      const index = BASE64.indexOf(valid.charAt(at));
      const replacement = index < 0 ? 'A' : BASE64.charAt((index + recipe.shift) % 64);
      return `${valid.slice(0, at)}${replacement}${valid.slice(at + 1)}`;
    }
    case 'untrusted-key':
      return signBody(body, keys.untrusted);
    case 'other-bytes':
      return signBody(Buffer.concat([body, Buffer.from(' ')]), keys.trusted);
    case 'repeated':
      return [valid, valid];
  }
}
