import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError } from '../../../../src/lib/config/config-error.ts';
import { integer } from '../../../../src/lib/config/kinds.ts';
import { loadSettings, variablesOf } from '../../../../src/lib/config/load-settings.ts';
import { defineSection } from '../../../../src/lib/config/section.ts';
import { variable } from '../../../../src/lib/config/variable.ts';

/**
 * The configuration library on small sections of its own: how sections read, use each other and
 * are composed. What the service's sections say is tested beside each module, and the
 * composition in test/unit/cli/config.test.ts.
 */

const listener = defineSection({
  variables: {
    port: variable('TEST_PORT', integer(0, 65_535).default(3000), { doc: 'port' }),
    name: variable('TEST_NAME', z.string().optional(), { doc: 'name' }),
  },
});

const metrics = defineSection({
  variables: {
    metricsPort: variable('TEST_METRICS_PORT', integer(0, 65_535).default(9), { doc: 'm' }),
  },
  uses: { listener },
  read({ metricsPort }, { uses, problem }) {
    if (metricsPort === uses.listener.port)
      problem('TEST_METRICS_PORT: must differ from TEST_PORT');
    return { metrics: { port: metricsPort, tags: ['a'], key: Buffer.from('k') } };
  },
});

function problemsOf(load: () => unknown): readonly string[] {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('loadSettings', () => {
  it('when a section has no read, then each variable is read under its field, and its defaults are the values unset', () => {
    expect(loadSettings([listener], { TEST_PORT: '8080' })).toEqual({
      port: 8080,
      name: undefined,
    });
    expect(listener.defaults).toEqual({ port: 3000, name: undefined });
  });

  it('when a section uses another, then its rule sees what that one read, and is skipped when that one failed', () => {
    expect(
      problemsOf(() => loadSettings([listener, metrics], { TEST_METRICS_PORT: '3000' })),
    ).toEqual(['TEST_METRICS_PORT: must differ from TEST_PORT']);
    // The listener's own problem only: the rule that needs its port does not run.
    expect(
      problemsOf(() =>
        loadSettings([listener, metrics], { TEST_PORT: 'x', TEST_METRICS_PORT: '3000' }),
      ),
    ).toEqual([expect.stringMatching(/^TEST_PORT: /)]);
  });

  it('when loaded, then the configuration is frozen all the way down, buffers aside', () => {
    const config = loadSettings([listener, metrics], {});
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.metrics)).toBe(true);
    expect(Object.isFrozen(config.metrics.tags)).toBe(true);
    expect(config.metrics.key.toString()).toBe('k');
  });

  it('when a section comes before one it uses, or two sections declare one variable or read one field, then loading throws naming it', () => {
    expect(() => loadSettings([metrics, listener], {})).toThrow(
      'the section of TEST_METRICS_PORT: uses a section not composed before it',
    );
    expect(() => variablesOf([listener, listener])).toThrow(
      'TEST_PORT, TEST_NAME: declared by two sections',
    );
    const again = defineSection({
      variables: { other: variable('TEST_OTHER', z.string().optional(), { doc: 'o' }) },
      read: () => ({ port: 1 }),
    });
    expect(() => loadSettings([listener, again], {})).toThrow('port: read by two sections');
  });

  it('when a variable has neither a default nor may be unset, then declaring it throws', () => {
    expect(() => variable('TEST_REQUIRED', z.string(), { doc: 'r' })).toThrow(
      'TEST_REQUIRED: give it a default, or make it optional',
    );
  });
});
