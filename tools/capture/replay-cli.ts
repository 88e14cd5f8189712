/**
 * npm run replay -- <file or folder> [--url http://127.0.0.1:3000] [--secret <Authorisation>]
 *                   [--new-webhookid] [--report-only]
 *
 * Re-sends captured deliveries (docs/captured-fixtures.md) byte for byte with their recorded
 * headers and signatures, and compares each answer with the file's `expected` status. Exit code
 * 1 when any answer differs (unless --report-only), 2 on bad usage. See docs/tools.md.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { answerWords } from './answer-words.ts';
import { captureFilesAt, loadCaptureFile } from './capture-files.ts';
import {
  replayCaptures,
  summariseReplay,
  webhookIdCounter,
  type ReplayResult,
} from './replay-deliveries.ts';

const USAGE =
  'usage: npm run replay -- <file or folder> [--url http://127.0.0.1:3000] [--secret <value>] [--new-webhookid] [--report-only]';

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      url: { type: 'string', default: 'http://127.0.0.1:3000' },
      secret: { type: 'string' },
      'new-webhookid': { type: 'boolean', default: false },
      'report-only': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help || positionals.length === 0) {
    console.error(USAGE);
    return values.help ? 0 : 2;
  }
  const files = positionals.flatMap((target) => captureFilesAt(target));
  if (files.length === 0) {
    console.error(`no *.json files in ${positionals.join(', ')}`);
    return 2;
  }
  const results = await replayCaptures(files.map(loadCaptureFile), {
    url: values.url,
    ...(values.secret !== undefined && { secret: values.secret }),
    ...(values['new-webhookid'] && { newWebhookId: webhookIdCounter() }),
  });
  for (const result of results) console.log(describe(result));
  const summary = summariseReplay(results);
  console.log(
    `\n${summary.files} replayed to ${values.url}: ${summary.matched} as expected, ${summary.differed} different`,
  );
  if (summary.duplicates > 0)
    console.log(
      `${summary.duplicates} answered duplicate (already stored): the receiver already had them, so this replay did not validate or store them again`,
    );
  return summary.differed > 0 && !values['report-only'] ? 1 : 0;
}

function describe(result: ReplayResult): string {
  const verdict = result.differences.length === 0 ? 'ok  ' : 'DIFF';
  const words = answerWords(result.description);
  const answer =
    result.status === undefined
      ? 'no answer'
      : `${result.status} ${result.envelopeStatus ?? '-'}${words === undefined ? '' : `: ${words}`}`;
  const expected =
    result.expectedStatus === undefined ? '' : ` (expected ${result.expectedStatus})`;
  const why =
    result.differences.length === 0 ? '' : `\n       ${result.differences.join('\n       ')}`;
  return `${verdict} ${path.basename(result.file)}: ${answer}${expected}${why}`;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  },
);
