import { NotDone } from '../../../src/lib/command-line/errors.ts';
import type { Expectation, PlannedSend } from './plan.ts';

export interface SimulationSummary {
  notifications: number;
  /** Deliveries planned: notifications plus redeliveries (duplicates). */
  deliveries: number;
  duplicates: number;
  /** HTTP requests sent, retries included. */
  sent: number;
  answers: { 200: number; 400: number; 401: number; '5xx': number; other: number };
  networkErrors: number;
  retried: number;
  retrySucceeded: number;
  /** Deliveries that should have been accepted but were finally refused or got no answer. */
  lost: number;
  /** Of `lost`, those refused with 401: the receiver trusts another key, or wants a secret. */
  lostUnauthorised: number;
  /** Forged deliveries (bad signature) that were accepted. */
  forgedAccepted: number;
  /** Every final answer that was not the expected one, described. */
  unexpected: string[];
  durationMs: number;
}

const EXPECTED_STATUS: Record<Expectation, number> = { accepted: 200, forged: 401, malformed: 400 };

export function emptySummary(plan: readonly PlannedSend[]): SimulationSummary {
  const duplicates = plan.filter((send) => send.duplicate).length;
  return {
    notifications: plan.length - duplicates,
    deliveries: plan.length,
    duplicates,
    sent: 0,
    answers: { 200: 0, 400: 0, 401: 0, '5xx': 0, other: 0 },
    networkErrors: 0,
    retried: 0,
    retrySucceeded: 0,
    lost: 0,
    lostUnauthorised: 0,
    forgedAccepted: 0,
    unexpected: [],
    durationMs: 0,
  };
}

/** One HTTP attempt: its status, or undefined for a network error or timeout. */
export function countAttempt(
  summary: SimulationSummary,
  status: number | undefined,
  retry: boolean,
): void {
  summary.sent += 1;
  if (retry) summary.retried += 1;
  if (retry && status === 200) summary.retrySucceeded += 1;
  if (status === undefined) summary.networkErrors += 1;
  else if (status === 200 || status === 400 || status === 401) summary.answers[status] += 1;
  else if (status >= 500) summary.answers['5xx'] += 1;
  else summary.answers.other += 1;
}

/** A delivery's last answer, judged against what the receiver should have said. */
export function countFinal(
  summary: SimulationSummary,
  send: PlannedSend,
  status: number | undefined,
  error: string | undefined,
): void {
  const { expectation, webhookId, eventName, variant } = send.notification;
  const want = EXPECTED_STATUS[expectation];
  if (status === want) return;
  if (expectation === 'accepted') summary.lost += 1;
  if (expectation === 'accepted' && status === 401) summary.lostUnauthorised += 1;
  if (expectation === 'forged' && status === 200) summary.forgedAccepted += 1;
  const got = status === undefined ? `no answer (${error ?? 'network error'})` : String(status);
  summary.unexpected.push(
    `${eventName} ${variant}${send.duplicate ? ' (redelivery)' : ''} Webhookid ${webhookId}: expected ${want}, got ${got}`,
  );
}

/** NotDone when a delivery the receiver should have accepted was lost, or a forgery accepted. */
export function checkSimulation(summary: SimulationSummary): void {
  if (summary.lost > 0 || summary.forgedAccepted > 0) throw new NotDone();
}

export function formatSummary(summary: SimulationSummary): string {
  const a = summary.answers;
  const lines = [
    `notifications ${summary.notifications}, deliveries ${summary.deliveries} (${summary.duplicates} redelivered with the same Webhookid)`,
    `sent ${summary.sent}: 200 ${a[200]}, 400 ${a[400]}, 401 ${a[401]}, 5xx ${a['5xx']}, other ${a.other}, network errors ${summary.networkErrors}`,
    `retried ${summary.retried}, retry successes ${summary.retrySucceeded}`,
    `lost ${summary.lost}, forged accepted ${summary.forgedAccepted}, unexpected answers ${summary.unexpected.length}`,
    `took ${(summary.durationMs / 1000).toFixed(1)} s`,
  ];
  if (summary.lostUnauthorised > 0) lines.push(UNAUTHORISED_HINT);
  const shown = summary.unexpected.slice(0, 20).map((line) => `  ${line}`);
  if (summary.unexpected.length > shown.length)
    shown.push(`  ... ${summary.unexpected.length - shown.length} more`);
  return [...lines, ...shown].join('\n');
}

const UNAUTHORISED_HINT = [
  'hint: genuine deliveries were refused with 401. Either the receiver wants a secret (--secret), or',
  '  its key endpoint serves another key than the one these deliveries were signed with',
  '  (keep one key across runs with --key-file <pem> --save-key).',
].join('\n');
