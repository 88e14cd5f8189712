import { describe, expect, it } from 'vitest';
import { DEFAULT_ADMIN_DATABASE_URL, parseOptions, UsageError } from '../core/options.ts';

describe('parseOptions', () => {
  it('when no flag is given, then the defaults of a full run apply', () => {
    expect(parseOptions([], {})).toMatchObject({
      rounds: 3,
      duration: 10,
      connections: 32,
      rate: 1000,
      pacing: 'smooth',
      only: ['receiver', 'hand-written', 'bare'],
      adminDatabaseUrl: DEFAULT_ADMIN_DATABASE_URL,
      writeDocs: true,
    });
  });

  it('when --only lists servers in any order, then they run in the fixed alternation order', () => {
    const options = parseOptions(['--only=bare,receiver'], {});
    expect(options !== 'help' && options.only).toEqual(['receiver', 'bare']);
  });

  it('when BENCH_DATABASE_URL is set, then it is the admin URL unless the flag overrides it', () => {
    const env = { BENCH_DATABASE_URL: 'postgres://a@127.0.0.1/x' };
    expect(parseOptions([], env)).toMatchObject({ adminDatabaseUrl: env.BENCH_DATABASE_URL });
    expect(parseOptions(['--database-url=postgres://b@127.0.0.1/y'], env)).toMatchObject({
      adminDatabaseUrl: 'postgres://b@127.0.0.1/y',
    });
  });

  it('when a value is out of range or unknown, then a usage error names it', () => {
    expect(() => parseOptions(['--rounds=0'], {})).toThrow(UsageError);
    expect(() => parseOptions(['--only=receiver,nginx'], {})).toThrow(/--only/);
    expect(() => parseOptions(['--pacing=bursty'], {})).toThrow(/--pacing/);
    expect(() => parseOptions(['--frobnicate'], {})).toThrow(UsageError);
    expect(() => parseOptions(['--runtime=turbo'], {})).toThrow(/--runtime/);
  });

  it('when --runtime is given, then it names the preset every server runs with', () => {
    expect(parseOptions([], {})).toMatchObject({
      runtime: 'production',
      allowUnequalRuntime: false,
    });
    expect(parseOptions(['--runtime=node-defaults'], {})).toMatchObject({
      runtime: 'node-defaults',
    });
  });

  it('when --profile is given without --only, then only the receiver is profiled', () => {
    expect(parseOptions(['--profile'], {})).toMatchObject({ profile: true, only: ['receiver'] });
    expect(parseOptions(['--profile', '--only=hand-written'], {})).toMatchObject({
      only: ['hand-written'],
    });
  });
});
