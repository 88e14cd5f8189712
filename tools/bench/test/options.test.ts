import { describe, expect, it } from 'vitest';
import { DEFAULT_ADMIN_DATABASE_URL, parseOptions, UsageError } from '../options.ts';

/** Commander's output, kept instead of printed. */
function capture() {
  const written = { out: '', err: '' };
  return {
    written,
    output: {
      writeOut: (text: string) => (written.out += text),
      writeErr: (text: string) => (written.err += text),
    },
  };
}

describe('parseOptions', () => {
  it('when no flag is given, then the defaults of a full run apply', () => {
    expect(parseOptions([], {})).toEqual({
      rounds: 5,
      duration: 10,
      connections: 32,
      json: false,
      profile: false,
      database: undefined,
      adminDatabaseUrl: DEFAULT_ADMIN_DATABASE_URL,
    });
  });

  it('when flags are given, in either spelling, then they are taken', () => {
    expect(
      parseOptions(
        ['--rounds', '7', '--duration=3', '--connections', '8', '--json', '--database', 'bench_2m'],
        {},
      ),
    ).toMatchObject({ rounds: 7, duration: 3, connections: 8, json: true, database: 'bench_2m' });
    expect(parseOptions(['--profile'], {})).toMatchObject({ profile: true });
  });

  it('when BENCH_DATABASE_URL is set, then it is the admin URL', () => {
    const url = 'postgres://bench@10.0.0.5:5433/postgres';
    expect(parseOptions([], { BENCH_DATABASE_URL: url })).toMatchObject({ adminDatabaseUrl: url });
  });

  it('when a value is out of range or unknown, then a usage error names it', () => {
    for (const argv of [
      ['--rounds', '0'],
      ['--duration', 'ten'],
      ['--warmup', '3'],
      ['--database', 'a;b'],
    ]) {
      const { written, output } = capture();
      expect(() => parseOptions(argv, {}, output)).toThrow(UsageError);
      expect(written.err).toContain(argv[0]);
    }
  });

  it('when --help is given, then the flags are listed and nothing runs', () => {
    const { written, output } = capture();
    expect(parseOptions(['--help'], {}, output)).toBe('help');
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
