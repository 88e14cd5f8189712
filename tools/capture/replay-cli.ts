/**
 * npm run replay -- <file or folder> [--url http://127.0.0.1:3000] [--secret <Authorisation>]
 *                   [--new-webhookid] [--report-only]
 *
 * Re-sends captured deliveries (docs/captured-fixtures.md) byte for byte with their recorded
 * headers and signatures, and compares each answer with the file's `expected` status. Exit code
 * 1 when any answer differs (unless --report-only), 2 on bad usage (tools/common/run-tool.ts).
 * See docs/tools.md.
 */
import path from 'node:path';
import { answerWords } from './answer-words.ts';
import { captureFilesAt, loadCaptureFile } from './capture-files.ts';
import {
  replayCaptures,
  summariseReplay,
  webhookIdCounter,
  type ReplayResult,
} from './replay-deliveries.ts';
import { NotDone, UsageError } from '../../src/lib/command-line/errors.ts';
import { runTool, toolIo } from '../common/run-tool.ts';

const USAGE =
  'usage: npm run replay -- <file or folder> [--url http://127.0.0.1:3000] [--secret <value>] [--new-webhookid] [--report-only]';

/** Replays every capture file found, prints each answer and a summary; a difference is NotDone. */
async function replay(
  targets: readonly string[],
  options: { url: string; secret: string | undefined; newWebhookId: boolean; reportOnly: boolean },
): Promise<void> {
  if (targets.length === 0) throw new UsageError('no capture file or folder given');
  const files = targets.flatMap((target) => {
    try {
      return captureFilesAt(target);
    } catch (error) {
      // A file or folder that is not there: the words of the call.
      throw new UsageError(error instanceof Error ? error.message : String(error), '');
    }
  });
  if (files.length === 0) throw new UsageError(`no *.json files in ${targets.join(', ')}`, '');
  const results = await replayCaptures(files.map(loadCaptureFile), {
    url: options.url,
    ...(options.secret !== undefined && { secret: options.secret }),
    ...(options.newWebhookId && { newWebhookId: webhookIdCounter() }),
  });
  for (const result of results) toolIo.out(describe(result));
  const summary = summariseReplay(results);
  toolIo.out(
    `\n${summary.files} replayed to ${options.url}: ${summary.matched} as expected, ${summary.differed} different`,
  );
  if (summary.duplicates > 0)
    toolIo.out(
      `${summary.duplicates} answered duplicate (already stored): the receiver already had them, so this replay did not validate or store them again`,
    );
  if (summary.differed > 0 && !options.reportOnly) throw new NotDone();
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

await runTool(
  {
    name: 'replay',
    help: USAGE,
    arguments: ['[files...]'],
    options: [
      { flags: '--url <url>' },
      { flags: '--secret <value>' },
      { flags: '--new-webhookid' },
      { flags: '--report-only' },
    ],
    run: ({ args, options }) =>
      replay(args, {
        url: (options.url as string | undefined) ?? 'http://127.0.0.1:3000',
        secret: options.secret as string | undefined,
        newWebhookId: options.newWebhookid === true,
        reportOnly: options.reportOnly === true,
      }),
  },
  'replay failed',
);
