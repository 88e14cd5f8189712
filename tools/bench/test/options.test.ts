import { describe, expect, it } from 'vitest';
import type { CommandIo } from '../../../src/lib/command-line/command-description.ts';
import { UsageError } from '../../../src/lib/command-line/errors.ts';
import { runCommand } from '../../../src/lib/command-line/run-command.ts';
import { benchCommand, DEFAULT_ADMIN_DATABASE_URL, type BenchOptions } from '../options.ts';

/** What the command writes, kept instead of printed. */
function capture() {
  const written = { out: '', err: '' };
  const io: CommandIo = {
    out: (text) => (written.out += `${text}\n`),
    err: (text) => (written.err += `${text}\n`),
  };
  return { written, io };
}

/** The options `npm run bench -- <argv>` runs with, or 'help' when it only printed its help. */
async function parseOptions(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  io: CommandIo = capture().io,
): Promise<BenchOptions | 'help'> {
  let given: BenchOptions | 'help' = 'help';
  await runCommand(
    benchCommand(env, (options) => {
      given = options;
      return Promise.resolve();
    }),
    argv,
    io,
  );
  return given;
}

describe('parseOptions', () => {
  it('when no flag is given, then the defaults of a full run apply', async () => {
    expect(await parseOptions([], {})).toEqual({
      rounds: 5,
      duration: 10,
      connections: 32,
      json: false,
      profile: false,
      database: undefined,
      feedEndpoints: 0,
      adminDatabaseUrl: DEFAULT_ADMIN_DATABASE_URL,
    });
  });

  it('when flags are given, in either spelling, then they are taken', async () => {
    expect(
      await parseOptions(
        ['--rounds', '7', '--duration=3', '--connections', '8', '--json', '--database', 'bench_2m'],
        {},
      ),
    ).toMatchObject({ rounds: 7, duration: 3, connections: 8, json: true, database: 'bench_2m' });
    expect(await parseOptions(['--profile'], {})).toMatchObject({ profile: true });
    expect(await parseOptions(['--feed-endpoints', '4'], {})).toMatchObject({ feedEndpoints: 4 });
  });

  it('when BENCH_DATABASE_URL is set, then it is the admin URL', async () => {
    const url = 'postgres://bench@10.0.0.5:5433/postgres';
    expect(await parseOptions([], { BENCH_DATABASE_URL: url })).toMatchObject({
      adminDatabaseUrl: url,
    });
  });

  it('when a value is out of range or unknown, then a usage error names it', async () => {
    for (const argv of [
      ['--rounds', '0'],
      ['--duration', 'ten'],
      ['--warmup', '3'],
      ['--database', 'a;b'],
      ['--feed-endpoints', '17'],
    ]) {
      // The message, not the help after it (which lists every flag) is what names it.
      const error = await parseOptions(argv, {}).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).message).toContain(argv[0]);
    }
  });

  it('when --help is given, then the flags are listed and nothing runs', async () => {
    const { written, io } = capture();
    expect(await parseOptions(['--help'], {}, io)).toBe('help');
    for (const flag of [
      '--rounds',
      '--duration',
      '--connections',
      '--json',
      '--profile',
      '--database',
    ]) {
      expect(written.out).toContain(flag);
    }
    expect(written.out).toContain('BENCH_DATABASE_URL');
  });
});
