import { answeredBy } from '../core/http-post.ts';
import { judgeLoad } from '../core/judge.ts';
import { check, tally, type ScenarioResult } from '../core/report.ts';
import { runLoad, type Send } from '../core/sender.ts';
import type { PlannedDelivery } from '../core/workload.ts';
import { workloadFor, type ScenarioContext } from './context.ts';
import { exitCheck, exitsSince, markOutputs } from './exits.ts';
import { sendHostileProbes } from './hostile-probes.ts';

/**
 * A: many deliveries through nginx, a share of them sent twice (or more) back to back, so the
 * copies are in flight at once and round-robin puts them on different instances. Every answer
 * must be 200 and the database must hold each delivery exactly once.
 */
export async function duplicatesAcrossInstances(context: ScenarioContext): Promise<ScenarioResult> {
  const { stack, options } = context;
  await stack.store.clear();
  const marks = markOutputs(stack.receivers);
  const next = workloadFor(context, 'A');
  const queue = plan(next, options.deliveries, options.duplicateShare);
  const started = performance.now();
  let position = 0;
  const sends = await runLoad({
    baseUrl: stack.nginxUrl,
    secret: stack.secret,
    concurrency: options.concurrency,
    next: () => queue[position++],
    label: 'lb-A',
    onBody: context.onBody,
  });
  const loadSeconds = (performance.now() - started) / 1000;
  const probes = await sendHostileProbes(context, next);
  const stored = await stack.store.read();
  const judged = judgeLoad(sends, stored, false);
  const f = judged.answers;
  const distinct = new Set(sends.map((send) => send.delivery.webhookId)).size;
  const groups = duplicateGroups(sends);
  const probesStored = probes.webhookIds.filter((id) => stored.deliveries.has(id)).length;
  const exits = exitsSince(stack.receivers, marks);

  return {
    title: 'A. duplicates across instances',
    seconds: (performance.now() - started) / 1000,
    figures: [
      ...judged.figures,
      ['throughput through nginx', `${Math.round(sends.length / loadSeconds)} deliveries/s`],
      ['duplicate groups answered by both instances', `${groups.split} of ${groups.total}`],
      ['hostile probes (bad secret / bad signature)', `${probes.sent}: ${probes.statuses}`],
    ],
    checks: [
      check('every answer is 200', f.answered200 === sends.length && f.failedFirstTry === 0),
      ...judged.checks,
      check(
        'duplicates absorbed == sends - distinct',
        f.duplicatesAbsorbed === sends.length - distinct,
        `${f.duplicatesAbsorbed} vs ${sends.length - distinct}`,
      ),
      check(
        'duplicates really landed on both instances',
        groups.total === 0 || groups.split > 0,
        `${groups.split} of ${groups.total} groups`,
      ),
      check('every hostile probe answered 401', probes.all401, probes.statuses),
      check('no hostile probe stored', probesStored === 0, `${probesStored} stored`),
      exitCheck(exits),
    ],
  };
}

/**
 * Distinct deliveries, each followed at once by its copies; copies spread evenly over the run
 * (a delivery gets floor((i+1)d/n) - floor(id/n) copies).
 */
function plan(
  next: () => PlannedDelivery,
  total: number,
  share: number,
): { delivery: PlannedDelivery; copy: number }[] {
  const duplicates = Math.round(total * share);
  const distinct = total - duplicates;
  const queue: { delivery: PlannedDelivery; copy: number }[] = [];
  for (let i = 0; i < distinct; i += 1) {
    const delivery = next();
    const copies =
      Math.floor(((i + 1) * duplicates) / distinct) - Math.floor((i * duplicates) / distinct);
    for (let copy = 0; copy <= copies; copy += 1) queue.push({ delivery, copy });
  }
  return queue;
}

/** Deliveries sent more than once, and how many of them were answered by two instances. */
function duplicateGroups(sends: Send[]): { total: number; split: number } {
  const instances = new Map<string, Set<string>>();
  const copies = new Map<string, number>();
  for (const send of sends) {
    const id = send.delivery.webhookId;
    const set = instances.get(id) ?? new Set<string>();
    const instance = answeredBy(send.attempts[0]);
    if (instance) set.add(instance);
    instances.set(id, set);
    tally(copies, id);
  }
  const groups = [...copies.entries()].filter(([, n]) => n > 1).map(([id]) => id);
  return {
    total: groups.length,
    split: groups.filter((id) => (instances.get(id)?.size ?? 0) > 1).length,
  };
}
