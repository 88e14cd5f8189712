import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The layer rule (lint/layers.js) through the project's real ESLint configuration, on small
 * in-memory files placed in each layer: what may import what.
 */

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
let eslint: ESLint;

beforeAll(() => {
  // The files exist only in memory, so in no tsconfig: linted without type information (the
  // layer rule needs none).
  eslint = new ESLint({ cwd: ROOT, overrideConfig: tseslint.configs.disableTypeChecked });
});

/** The layer rule's messages for `code` placed at `file` (relative to the project). */
async function layerErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport {};\n`, {
    filePath: path.join(ROOT, file),
  });
  // A file that could not be parsed has no layer errors either: no test passes that way.
  expect((result?.messages ?? []).filter((message) => message.fatal)).toEqual([]);
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === 'layers/imports')
    .map((message) => message.message);
}

describe('the layer rule', () => {
  it.each([
    ['src/http/example.ts', "import '../../tools/common/free-port.ts';", /the service/],
    ['src/http/example.ts', "import '../../test/support/signing.ts';", /the service/],
    ['src/storage/example.ts', "import '../../migrations/x.ts';", /the service/],
    ['src/example.ts', "export * from '../tools/simulator/plan.ts';", /the service/],
    ['src/example.ts', "await import('../tools/capture/replay-cli.ts');", /the service/],
    ['src/storage/example.ts', "import '../provider/client.ts';", /the delivery pipeline/],
    ['src/http/example.ts', "import '../feed/relay.ts';", /the delivery pipeline/],
    ['src/delivery/example.ts', "import '../recovery/run.ts';", /the delivery pipeline/],
    [
      'src/http/example.ts',
      "import '../quarantine/quarantine-operations.ts';",
      /the delivery pipeline/,
    ],
    ['src/common/example.ts', "import '../logger.ts';", /src\/common imports only/],
    ['src/common/example.ts', "import '../../tools/common/post-delivery.ts';", /src\/common/],
    ['src/lib/example.ts', "import '../events/parsed.ts';", /src\/lib imports only/],
    ['src/lib/example.ts', "import '../common/signing.ts';", /src\/lib imports only/],
    ['src/lib/example.ts', "import '../../tools/common/free-port.ts';", /src\/lib imports only/],
    ['tools/simulator/example.ts', "import '../../test/support/signing.ts';", /a tool imports/],
    ['tools/simulator/example.ts', "import '../../src/http/envelope.ts';", /a tool imports/],
    ['tools/capture/example.ts', "export { x } from '../../src/app.ts';", /a tool imports/],
    ['migrations/example.ts', "import '../src/storage/database.ts';", /a migration/],
    ['migrations/example.ts', "import '../src/common/platform-key.ts';", /a migration/],
  ])('when %s imports across its layer (%s), then lint reports it', async (file, code, why) => {
    const errors = await layerErrors(file, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(why);
  });

  it.each([
    ['src/http/example.ts', "import '../common/platform-key.ts'; import 'pg';"],
    ['src/recovery/example.ts', "import '../storage/database.ts'; import '../provider/x.ts';"],
    ['src/common/example.ts', "import './signing.ts'; import 'node:crypto';"],
    ['src/lib/example.ts', "import './sydney-time.ts'; import 'node:crypto';"],
    ['src/common/example.ts', "import '../lib/decimal-money.ts';"],
    ['src/http/example.ts', "import '../lib/backoff.ts';"],
    ['src/feed/example.ts', "import '../lib/backoff.ts'; import '../lib/sydney-time.ts';"],
    ['tools/sandbox/example.ts', "import '../../src/lib/sydney-time.ts';"],
    ['tools/simulator/example.ts', "import '../../src/common/signing.ts';"],
    ['tools/simulator/example.ts', "import '../common/post-delivery.ts'; import '../bench/x.ts';"],
    ['tools/capture/example.ts', "import '../../src/config.ts'; import '../../src/logger.ts';"],
    ['tools/capture/test/example.test.ts', "import '../../../test/support/signing.ts';"],
    ['test/unit/example.test.ts', "import '../../tools/capture/replay-cli.ts';"],
    ['migrations/example.ts', "import 'kysely';"],
  ])('when %s imports within its layer (%s), then lint accepts it', async (file, code) => {
    expect(await layerErrors(file, code)).toEqual([]);
  });
});
