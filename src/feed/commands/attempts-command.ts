import type { CommandDescription } from '../../lib/command-line/command-description.ts';
import { NotDone, UsageError } from '../../lib/command-line/errors.ts';
import { subcommandHelp, type HelpRow } from '../../lib/command-line/help-rows.ts';
import { wholeNumber } from '../../lib/command-line/whole-number.ts';
import { findEndpoint } from '../endpoints/endpoint-store.ts';
import { USAGE, WIDTH, type OperatorDeps } from './command-deps.ts';
import { attemptLine } from './show-command.ts';
import { sinceTime } from './times.ts';

/**
 * `feed attempts --endpoint NAME [--since …] [-n N] [--failed]`: an endpoint's attempt log,
 * newest first, at most N lines (the log of a busy endpoint is millions of rows: never all).
 */

export const ATTEMPTS_ROW: HelpRow = [
  'attempts --endpoint NAME [--since <ISO time|1h>] [-n N] [--failed]',
  "an endpoint's attempts, newest first, at most N (default 50, at most 1000);\n--failed: the failures only",
];

export function attemptsCommand(
  { io, withDatabase }: OperatorDeps,
  now: () => number,
): CommandDescription {
  return {
    name: 'attempts',
    help: subcommandHelp(USAGE, [ATTEMPTS_ROW], WIDTH),
    options: [
      { flags: '--endpoint <name>' },
      { flags: '--since <time>' },
      { flags: '-n <N>', parse: wholeNumber(1000) },
      { flags: '--failed' },
    ],
    run: ({ options }) => {
      const name = options.endpoint as string | undefined;
      if (name === undefined) throw new UsageError('attempts needs --endpoint NAME');
      const since =
        options.since === undefined
          ? undefined
          : sinceTime(options.since as string, '--since', now());
      return withDatabase(async (db) => {
        const endpoint = await findEndpoint(db, name);
        if (!endpoint) throw new NotDone(`no endpoint named ${name} (endpoints list)`);
        let query = db
          .selectFrom('feed_attempts')
          .selectAll()
          .where('endpoint_id', '=', endpoint.id)
          .orderBy('started_at', 'desc')
          .orderBy('id', 'desc')
          .limit((options.n as number | undefined) ?? 50);
        if (since) query = query.where('started_at', '>=', since);
        if (options.failed === true) query = query.where('outcome', '=', 'failed');
        const attempts = await query.execute();
        if (attempts.length === 0) io.out('no attempts');
        for (const a of attempts) {
          io.out(`evt_${a.event_id}  position ${a.position}  ${attemptLine(a)}  (${a.instance})`);
        }
      });
    },
  };
}
