import pino from 'pino';
import { signBody } from '../../common/signing.ts';
import type { LeakDetector } from '../core/leaks.ts';
import { check, tally, type Check, type FigureRow, type ScenarioResult } from '../core/report.ts';
import type { Stack } from '../core/stack.ts';

/** Counts response bodies as they arrive and keeps those that leak. */
export interface BodyScan {
  onBody(body: string): void;
  scanned(): number;
  leaking(): number;
}

export function createBodyScan(leaks: LeakDetector): BodyScan {
  let scanned = 0;
  let leaking = 0;
  return {
    onBody: (body) => {
      scanned += 1;
      if (leaks.scan(body).length > 0) leaking += 1;
    },
    scanned: () => scanned,
    leaking: () => leaking,
  };
}

/**
 * The secrets (the shared secret; D adds the feed secret and its key, the feed token and the
 * API key) and the signatures must appear in no log line of any process or command and in no
 * response body. First the detector proves it would see them.
 */
export function secretsResult(stack: Stack, bodies: BodyScan): ScenarioResult {
  const started = performance.now();
  const sampleSignature = signBody('detector self-test', stack.signer.privateKey);
  stack.leaks.addSignature(sampleSignature);
  const selfTest = stack.leaks.scan(`{"msg":"x","h":"${stack.secret}","s":"${sampleSignature}"}`);
  const checks: Check[] = [
    check(
      'the detector finds a planted secret and signature',
      selfTest.length === 2,
      selfTest.join(', '),
    ),
  ];
  const figures: FigureRow[] = [];
  for (const { source, text } of stack.logs()) {
    const found = stack.leaks.scan(text);
    figures.push([`${source} log`, `${text.length} bytes, ${text.split('\n').length - 1} lines`]);
    checks.push(
      check(
        `nothing secret in the ${source} log`,
        found.length === 0,
        found.join(', ') || undefined,
      ),
    );
  }
  figures.push(['response bodies scanned', bodies.scanned()]);
  checks.push(
    check(
      'nothing secret in any response body',
      bodies.leaking() === 0,
      `${bodies.leaking()} leaking`,
    ),
  );
  figures.push(...logSummary(stack));
  return {
    title: 'Secrets in logs and answers',
    figures,
    checks,
    seconds: (performance.now() - started) / 1000,
  };
}

/** Receivers' log lines by level and message: evidence of what they complained about. */
function logSummary(stack: Stack): FigureRow[] {
  const counts = new Map<string, number>();
  for (const receiver of stack.receivers) {
    for (const line of receiver.output().split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        const entry = JSON.parse(line) as { level?: number; msg?: string };
        tally(counts, `${pino.levels.labels[entry.level ?? 0] ?? 'level?'} "${entry.msg ?? ''}"`);
      } catch {
        tally(counts, 'unparsed line');
      }
    }
  }
  return [...counts.entries()]
    .sort(([, a], [, b]) => b - a)
    .map(([key, n]) => [`receivers logged ${key}`, n] as const);
}
