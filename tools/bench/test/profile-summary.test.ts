import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { groupOf } from '../profile-groups.ts';
import { renderProfile } from '../profile-run.ts';
import { summariseProfile, type CpuProfile } from '../profile-summary.ts';

/** 12 samples 1 ms apart from t = 1.001 s: 3 idle, 3 GC, 2 Express, 2 own code, 1 verify, 1 write. */
const TINY = JSON.parse(
  readFileSync(new URL('./fixtures/tiny.cpuprofile', import.meta.url), 'utf8'),
) as CpuProfile;

const shares = (groups: { name: string; percentOfBusy: number }[]) =>
  Object.fromEntries(groups.map((g) => [g.name, Math.round(g.percentOfBusy * 10) / 10]));

describe('summariseProfile', () => {
  it('when no window is given, then idle is left out and the groups share the busy time', () => {
    const summary = summariseProfile(TINY);
    expect(summary.busyMs).toBe(9);
    expect(summary.windowMs).toBe(12);
    expect(shares(summary.groups)).toEqual({
      GC: 33.3,
      'Express (router, middleware)': 22.2,
      'own code (the server itself)': 22.2,
      'RSA verify (node:crypto)': 11.1,
      'Node sockets and streams': 11.1,
    });
    expect(summary.groups[0]?.name).toBe('GC');
  });

  it('when a window is given, then only the samples inside it count', () => {
    const summary = summariseProfile(TINY, { startUs: 1_003_000, endUs: 1_008_000 });
    expect(summary.windowed).toBe(true);
    expect(summary.windowMs).toBe(5);
    expect(summary.busyMs).toBe(5);
    expect(shares(summary.groups)).toEqual({
      GC: 40,
      'Express (router, middleware)': 40,
      'RSA verify (node:crypto)': 20,
    });
    // Most self time first; ties by name.
    expect(summary.functions.map((f) => f.name)).toEqual([
      '(garbage collector)',
      'handle router/index.js:150',
      'next router/index.js:189',
      'verifyOneShot node:internal/crypto/sig:234',
    ]);
  });

  it('when the window is not in the profile, then the whole profile is summarised and says so', () => {
    const summary = summariseProfile(TINY, { startUs: 0, endUs: 10 });
    expect(summary.windowed).toBe(false);
    expect(summary.busyMs).toBe(9);
    const text = renderProfile({
      server: 'receiver',
      deliveriesPerSecond: 1000,
      answered200: 9,
      file: 'x.cpuprofile',
      summary,
    });
    expect(text).toContain('whole profile shown');
    // 3 ms of GC over 9 deliveries.
    expect(text).toMatch(/33\.3%\s+333\.3 µs\s+GC/);
  });
});

describe('groupOf', () => {
  const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });

  it('when a frame comes from a package, then the package decides its group', () => {
    expect(groupOf(frame('query', 'file:///app/node_modules/pg/lib/client.js'))).toBe(
      'pg (Postgres client)',
    );
    expect(groupOf(frame('write', 'file:///app/node_modules/sonic-boom/index.js'))).toBe(
      'pino (logging)',
    );
    expect(groupOf(frame('parse', 'file:///app/node_modules/zod/v4/core/schemas.js'))).toBe(
      'zod (validation)',
    );
    expect(groupOf(frame('x', 'file:///app/node_modules/@scope/thing/a.js'))).toBe(
      'other packages (@scope/thing)',
    );
  });

  it('when a frame is V8 or Node itself, then it is named by what it does', () => {
    expect(groupOf(frame('(garbage collector)', ''))).toBe('GC');
    expect(groupOf(frame('parse', ''))).toBe('JSON parse/stringify');
    expect(groupOf(frame('digest', 'node:internal/crypto/hash'))).toBe('crypto (hashes, other)');
    expect(groupOf(frame('writeHead', 'node:_http_server'))).toBe('Node HTTP');
    expect(groupOf(frame('onStreamRead', 'node:internal/stream_base_commons'))).toBe(
      'Node sockets and streams',
    );
    expect(groupOf(frame('emit', 'node:events'))).toBe('Node internals (other)');
  });
});
