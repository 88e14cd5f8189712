import { createHash } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { feedOutput } from '../../support/command-line.ts';
import { deliveryRows, numberedEvents, resetEndpoints } from '../../support/feed-endpoint-rows.ts';
import { useTestbed } from '../../support/testbed.ts';

/**
 * `feed endpoints …`: endpoints as data. What each command stores, what it refuses (with the
 * exit code and nothing stored), and that no secret or credential is ever printed back.
 */

const bed = useTestbed();
const feed = (words: string, ...more: string[]) =>
  feedOutput(bed.database.db, ...words.split(' '), ...more);
const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const OTHER_SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;

interface Row {
  name: string;
  kind: string;
  target: string | null;
  options: Record<string, string>;
  types: string[];
  secrets: string[];
  credentials: string | null;
  rate_per_second: number | null;
  timeout_ms: number;
  enabled: boolean;
  fanned_through: string;
}
const endpoint = async (name: string) =>
  (
    await bed.database.query<Row>(
      `SELECT name, kind, target, options, types, secrets, credentials, rate_per_second,
         timeout_ms, enabled, fanned_through::text FROM feed_endpoints WHERE name = $1`,
      [name],
    )
  )[0];

async function credentialsFile(text: string): Promise<string> {
  const file = path.join(await mkdtemp(path.join(tmpdir(), 'feed-cli-')), 'password');
  await writeFile(file, text);
  return file;
}

beforeEach(async () => {
  await resetEndpoints(bed.database);
  await numberedEvents(bed.database, ['payment.received', 'quarantine.opened', 'payment.received']);
});

describe('feed endpoints add', () => {
  it('stores an http endpoint starting now, prints the secret it made once, and what it will not get, by type', async () => {
    const added = await feed(
      'endpoints add ledger --url https://ledger.example/hooks --types payment.* --rate 20/s',
    );
    expect(added.code).toBe(0);
    const row = await endpoint('ledger');
    expect(row).toMatchObject({
      kind: 'http',
      target: 'https://ledger.example/hooks',
      types: ['payment.*'],
      rate_per_second: 20,
      enabled: true,
      fanned_through: '3',
    });
    expect(row?.secrets).toHaveLength(1);
    expect(added.out).toContain(`(shown this once; give it to the consumer): ${row?.secrets[0]}`);
    expect(added.out).toMatch(/starts after position 3: 2 earlier event\(s\)/);
    expect(added.out).toMatch(/^ {2}payment\.received +2$/m);
  });

  it('starts at a position, or after the events created before a time; a position beyond the last is refused', async () => {
    expect(
      (await feed('endpoints add from-one --url https://a.example --types * --start 1')).code,
    ).toBe(0);
    expect((await endpoint('from-one'))?.fanned_through).toBe('1');
    // Events were created a minute apart from 2026-11-01T00:00Z: the second at 00:01.
    expect(
      (
        await feed(
          'endpoints add by-time --url https://a.example --types * --start 2026-11-01T00:01:00Z',
        )
      ).code,
    ).toBe(0);
    expect((await endpoint('by-time'))?.fanned_through).toBe('1');

    const beyond = await feed('endpoints add ahead --url https://a.example --types * --start 99');
    expect(beyond.code).toBe(2);
    expect(beyond.err).toContain('beyond the last position');
    expect(await endpoint('ahead')).toBeUndefined();
  });

  it('stores a nats endpoint with its subject, stream and the password read from a file, and a given secret without printing it', async () => {
    const file = await credentialsFile('s3cret-broker-pass\n');
    const added = await feed(
      `endpoints add bus --nats nats://127.0.0.1:4222 --subject monoova.feed --stream FEED --types quarantine.* --credentials-file ${file} --secret ${SECRET} --disabled`,
    );
    expect(added.code).toBe(0);
    expect(await endpoint('bus')).toMatchObject({
      kind: 'nats',
      target: 'nats://127.0.0.1:4222',
      options: { subject: 'monoova.feed', stream: 'FEED' },
      secrets: [SECRET],
      credentials: 's3cret-broker-pass',
      enabled: false,
    });
    expect(`${added.out}\n${added.err}`).not.toContain(SECRET);
    expect(`${added.out}\n${added.err}`).not.toContain('s3cret-broker-pass');
  });

  it.each([
    [
      'plain http to another host',
      '--url http://ledger.example/hooks --types *',
      'plain http only to',
    ],
    [
      'a password in the URL',
      '--url https://u:hunter2@ledger.example --types *',
      'no user or password',
    ],
    [
      'a password in a broker URL',
      '--rabbitmq amqp://u:hunter2@127.0.0.1 --exchange feed --types *',
      '--credentials-file',
    ],
    ['two targets', '--url https://a.example --nats nats://127.0.0.1 --types *', 'exactly one of'],
    ['no target', '--types *', 'exactly one of'],
    ['no types', '--url https://a.example', 'needs --types'],
    [
      'a type that selects nothing',
      '--url https://a.example --types payments.*',
      'selects no event type',
    ],
    [
      'a nats endpoint without a subject',
      '--nats nats://127.0.0.1:4222 --types *',
      'needs --subject',
    ],
    [
      'a rabbitmq endpoint without an exchange',
      '--rabbitmq amqp://127.0.0.1 --types *',
      'needs --exchange',
    ],
    [
      'a rabbitmq password without its user',
      `--rabbitmq amqp://127.0.0.1 --exchange feed --types * --credentials-file ${'/dev/null'}`,
      'needs --user',
    ],
    [
      'a user for an http endpoint',
      '--url https://a.example --user u --types *',
      '--user is for a broker',
    ],
    [
      'an exchange for an http endpoint',
      '--url https://a.example --exchange x --types *',
      'for a rabbitmq endpoint',
    ],
    [
      'a malformed secret',
      '--url https://a.example --types * --secret whsec_hunter2',
      '--secret must be',
    ],
    [
      'a timeout out of range',
      '--url https://a.example --types * --timeout-ms 50',
      '--timeout-ms must be a whole number from 100',
    ],
    [
      'a start that is none',
      '--url https://a.example --types * --start yesterday',
      'not a position',
    ],
  ])('refuses %s: exit 2, nothing stored, no password echoed', async (_, words, message) => {
    const refused = await feed(`endpoints add refused ${words}`);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(message);
    expect(refused.err).not.toContain('hunter2');
    expect(await endpoint('refused')).toBeUndefined();
  });

  it('refuses a credentials file for an http endpoint, a bad name, and a name taken (exit 1, the first left as it was)', async () => {
    const file = await credentialsFile('pass');
    expect(
      (await feed(`endpoints add a --url https://a.example --types * --credentials-file ${file}`))
        .code,
    ).toBe(2);
    expect((await feed('endpoints add Bad_Name --url https://a.example --types *')).code).toBe(2);
    expect(await bed.database.count('feed_endpoints')).toBe(1);

    expect((await feed('endpoints add taken --url https://a.example --types *')).code).toBe(0);
    const again = await feed('endpoints add taken --url https://b.example --types payment.*');
    expect(again.code).toBe(1);
    expect(again.err).toContain('exists already');
    expect(await endpoint('taken')).toMatchObject({ target: 'https://a.example', types: ['*'] });
  });
});

describe('feed endpoints list and show', () => {
  it('print every endpoint and its settings, secrets by fingerprint only, never a secret or a credential', async () => {
    const file = await credentialsFile('s3cret-broker-pass');
    await feed(
      `endpoints add ledger --url https://ledger.example --types payment.* --secret ${SECRET}`,
    );
    await feed(`endpoints rotate-secret ledger --secret ${OTHER_SECRET}`);
    await feed(
      `endpoints add rabbit --rabbitmq amqps://mq.example --exchange feed --types * --user feeder --credentials-file ${file}`,
    );
    const stored = await endpoint('rabbit');

    const list = await feed('endpoints list');
    expect(list.code).toBe(0);
    expect(list.out).toMatch(/^name +kind +target +types +state +secrets$/m);
    expect(list.out).toMatch(
      /^configured +http +\(FEED_HTTP_URL\) +\* +enabled +\(FEED_HTTP_SECRET\)$/m,
    );
    expect(list.out).toMatch(
      /^ledger +http +https:\/\/ledger\.example\/ +payment\.\* +enabled +2$/m,
    );
    expect(list.out).toMatch(/^rabbit +rabbitmq +amqps:\/\/mq\.example +\* +enabled +1$/m);

    const show = await feed('endpoints show ledger');
    expect(show.code).toBe(0);
    const fingerprint = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 8);
    expect(show.out).toContain(
      `sha256:${fingerprint(SECRET)}, sha256:${fingerprint(OTHER_SECRET)} (newest)`,
    );
    const rabbit = await feed('endpoints show rabbit');
    expect(rabbit.out).toMatch(/^exchange: +feed$/m);
    expect(stored!.options).toEqual({ exchange: 'feed', user: 'feeder' });
    expect(rabbit.out).toMatch(/^credentials: +set$/m);

    const printed = [list, show, rabbit].map((r) => `${r.out}\n${r.err}`).join('\n');
    for (const secret of [SECRET, OTHER_SECRET, stored!.secrets[0]!, 's3cret-broker-pass']) {
      expect(printed).not.toContain(secret);
      expect(printed).not.toContain(secret.slice('whsec_'.length, 'whsec_'.length + 12));
    }
  });

  it('show of an unknown endpoint: exit 1', async () => {
    const missing = await feed('endpoints show nobody');
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('no endpoint named nobody');
  });
});

describe('feed endpoints update', () => {
  it('changes what is given and leaves the rest; a value out of range changes nothing', async () => {
    await feed('endpoints add ledger --url https://ledger.example --types payment.*');
    const updated = await feed(
      'endpoints',
      'update',
      'ledger',
      '--types',
      'payment.*,quarantine.*',
      '--timeout-ms',
      '2500',
      '--rate',
      '5',
    );
    expect(updated.code).toBe(0);
    expect(await endpoint('ledger')).toMatchObject({
      target: 'https://ledger.example',
      types: ['payment.*', 'quarantine.*'],
      timeout_ms: 2500,
      rate_per_second: 5,
    });

    expect((await feed('endpoints update ledger --concurrency 0 --timeout-ms 3000')).code).toBe(2);
    expect((await feed('endpoints update ledger --url http://10.0.0.1/')).code).toBe(2);
    expect((await feed('endpoints update ledger')).code).toBe(2);
    expect(await endpoint('ledger')).toMatchObject({
      target: 'https://ledger.example',
      timeout_ms: 2500,
    });
    expect((await feed('endpoints update nobody --rate 5')).code).toBe(1);
  });

  it('refuses what the environment declares for configured, naming the variable; its filter is its own', async () => {
    const url = await feed('endpoints update configured --url https://x.example');
    expect(url.code).toBe(2);
    expect(url.err).toContain('FEED_HTTP_URL');
    const timeout = await feed('endpoints update configured --timeout-ms 500');
    expect(timeout.err).toContain('FEED_HTTP_TIMEOUT_MS');
    expect(await endpoint('configured')).toMatchObject({ target: null, timeout_ms: 10000 });

    expect((await feed('endpoints update configured --types payment.*')).code).toBe(0);
    expect((await endpoint('configured'))?.types).toEqual(['payment.*']);
  });
});

describe('feed endpoints disable, enable, remove', () => {
  it('disables and enables; removes only a disabled endpoint, and one with undelivered events only with --force, its rows with it', async () => {
    await feed('endpoints add ledger --url https://ledger.example --types * --start 0');
    await deliveryRows(bed.database, 'ledger', [1, 2], 'sent');
    await deliveryRows(bed.database, 'ledger', [3], 'pending');

    const enabled = await feed('endpoints remove ledger');
    expect(enabled.code).toBe(1);
    expect(enabled.err).toContain('disable ledger first');
    expect((await feed('endpoints disable ledger')).code).toBe(0);
    expect((await endpoint('ledger'))?.enabled).toBe(false);

    const undelivered = await feed('endpoints remove ledger');
    expect(undelivered.code).toBe(1);
    expect(undelivered.err).toContain('1 pending event(s) and 0 dead letter(s)');
    expect(await bed.database.count('feed_endpoint_events')).toBe(3);

    const forced = await feed('endpoints remove ledger --force');
    expect(forced.code).toBe(0);
    expect(await endpoint('ledger')).toBeUndefined();
    expect(await bed.database.count('feed_endpoint_events')).toBe(0);

    expect((await feed('endpoints enable ledger')).code).toBe(1);
    expect((await feed('endpoints remove configured')).code).toBe(2);
    expect(await endpoint('configured')).toBeDefined();
  });

  it('enable brings a disabled endpoint back', async () => {
    await feed('endpoints add ledger --url https://ledger.example --types * --disabled');
    expect((await endpoint('ledger'))?.enabled).toBe(false);
    expect((await feed('endpoints enable ledger')).code).toBe(0);
    expect((await endpoint('ledger'))?.enabled).toBe(true);
  });
});

describe('feed endpoints rotate-secret and retire-secret', () => {
  it('adds a second secret (the one it made printed once), refuses a third, retires the oldest, never the last', async () => {
    await feed(`endpoints add ledger --url https://ledger.example --types * --secret ${SECRET}`);
    const rotated = await feed('endpoints rotate-secret ledger');
    expect(rotated.code).toBe(0);
    const [, made] = (await endpoint('ledger'))!.secrets;
    expect(made).toMatch(/^whsec_/);
    expect(rotated.out).toContain(`(shown this once; give it to the consumer): ${made}`);

    const third = await feed(`endpoints rotate-secret ledger --secret ${OTHER_SECRET}`);
    expect(third.code).toBe(1);
    expect(third.err).toContain('two secrets already');
    expect((await endpoint('ledger'))?.secrets).toEqual([SECRET, made]);

    expect((await feed('endpoints retire-secret ledger')).code).toBe(0);
    expect((await endpoint('ledger'))?.secrets).toEqual([made]);
    const last = await feed('endpoints retire-secret ledger');
    expect(last.code).toBe(1);
    expect((await endpoint('ledger'))?.secrets).toEqual([made]);
  });

  it("refuses configured's secrets, naming FEED_HTTP_SECRET", async () => {
    const refused = await feed('endpoints rotate-secret configured');
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('FEED_HTTP_SECRET');
    expect((await endpoint('configured'))?.secrets).toEqual([]);
  });
});
