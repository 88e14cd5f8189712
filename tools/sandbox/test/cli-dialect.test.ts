import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCli, USAGE } from '../cli-options.ts';

const MAIN = path.resolve(import.meta.dirname, '../main.ts');
const TSX = path.resolve(import.meta.dirname, '../../../node_modules/.bin/tsx');

describe('--dialect', () => {
  it('when not given, then any; the flag wins over SANDBOX_DIALECT', () => {
    expect(parseCli([], {}).dialect).toBe('any');
    expect(parseCli([], { SANDBOX_DIALECT: 'interface' }).dialect).toBe('interface');
    expect(parseCli(['--dialect', 'public'], { SANDBOX_DIALECT: 'interface' }).dialect).toBe(
      'public',
    );
    expect(USAGE).toContain('--dialect <d>');
  });

  it('when the value is unknown, or a strict dialect is asked with --demo, then it is refused naming the option', () => {
    expect(() => parseCli(['--dialect', 'strict'], {})).toThrow(
      'SANDBOX_DIALECT: must be any, interface, public (--dialect)',
    );
    expect(() => parseCli(['--demo', '--dialect', 'public'], {})).toThrow('--dialect');
  });

  it('when the process gets a bad --dialect, then it exits 2 naming it', () => {
    const env = { ...process.env };
    for (const name of Object.keys(env)) if (name.startsWith('SANDBOX_')) delete env[name];
    const bad = spawnSync(TSX, [MAIN, '--dialect', 'strict'], {
      encoding: 'utf8',
      env,
      timeout: 30_000,
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('SANDBOX_DIALECT: must be any, interface, public (--dialect)');
  });
});
