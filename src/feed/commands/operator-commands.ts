import type { CommandDescription } from '../../lib/command-line/command-description.ts';
import type { HelpRow } from '../../lib/command-line/help-rows.ts';
import { ATTEMPTS_ROW, attemptsCommand } from './attempts-command.ts';
import type { OperatorDeps } from './command-deps.ts';
import { ENDPOINTS_ROW, endpointsCommand } from './endpoints-command.ts';
import { REPLAY_ROW, replayCommand } from './replay-command.ts';
import { SHOW_ROW, showCommand } from './show-command.ts';

/**
 * The feed's commands about endpoints (issue 26): managing them, an event's story across them,
 * an endpoint's attempt log, replay. src/feed/feed-command.ts lists them after its own.
 */

/** Their rows of `feed --help`. */
export const OPERATOR_ROWS: readonly HelpRow[] = [
  ENDPOINTS_ROW,
  SHOW_ROW,
  ATTEMPTS_ROW,
  REPLAY_ROW,
];

export function operatorCommands(deps: OperatorDeps): CommandDescription[] {
  return [
    endpointsCommand(deps),
    showCommand(deps),
    attemptsCommand(deps, Date.now),
    replayCommand(deps),
  ];
}
