import { SENDER_ADDRESS } from './http-post.ts';
import { check, histogram, tally, type Check, type FigureRow } from './report.ts';
import { outcomeOf, type Send } from './sender.ts';
import type { ExpectedDelivery, StoredRows } from './store.ts';

/**
 * The one judge of what every scenario leaves in the database, whoever sent it (the harness's
 * sender in A to C, the sandbox in D): each delivery stored exactly once, with the bytes sent;
 * each business row once, by its key, in its table, pointing at its delivery; nothing else.
 */

export function judgeStorage(
  expected: readonly ExpectedDelivery[],
  stored: StoredRows,
): { figures: FigureRow[]; checks: Check[] } {
  const sent = new Map(expected.map((delivery) => [delivery.webhookId, delivery]));
  let storedOnce = 0;
  let lost = 0;
  let wrongBody = 0;
  for (const delivery of sent.values()) {
    const rows = stored.deliveries.get(delivery.webhookId) ?? [];
    if (rows.length === 1) storedOnce += 1;
    if (rows.length === 0) lost += 1;
    const differs = (row: { sha256: string; eventName: string }) =>
      row.sha256 !== delivery.sha256 || row.eventName !== delivery.eventName;
    if (rows.some(differs)) wrongBody += 1;
  }
  const allRows = [...stored.deliveries.values()].flat();
  const foreign = [...stored.deliveries.keys()].filter((id) => !sent.has(id)).length;
  const doubles =
    allRows.length -
    stored.deliveries.size +
    (allRows.length - new Set(allRows.map((row) => row.sha256)).size) +
    (stored.business.length -
      new Set(stored.business.map((row) => `${row.table}/${row.key}`)).size);

  const wanted = [...sent.values()].flatMap((delivery) =>
    delivery.rows.map((row) => ({ ...row, webhookId: delivery.webhookId })),
  );
  const found = new Map<string, { webhookId: string }[]>();
  const tables = new Map<string, number>();
  for (const row of stored.business) {
    tally(tables, row.table);
    const key = `${row.table}/${row.key}`;
    found.set(key, [...(found.get(key) ?? []), row]);
  }
  const keyedOnce = wanted.filter((row) => {
    const rows = found.get(`${row.table}/${row.key}`) ?? [];
    return rows.length === 1 && rows[0]?.webhookId === row.webhookId;
  }).length;
  const distinctWanted = new Set(wanted.map((row) => `${row.table}/${row.key}`)).size;

  return {
    figures: [
      ['distinct deliveries (Webhookids)', sent.size],
      ['rows stored (webhook_deliveries)', `${allRows.length} (${storedOnce} once)`],
      [
        'business rows stored / distinct keys sent',
        `${stored.business.length} / ${distinctWanted} (${histogram(tables) || '-'})`,
      ],
      ['quarantined / conflicts', `${stored.quarantined} / ${stored.conflicts}`],
      ['lost', lost],
    ],
    checks: [
      check(
        'nothing lost: every delivery stored exactly once by Webhookid',
        storedOnce === sent.size,
        `${storedOnce} of ${sent.size}, ${lost} lost`,
      ),
      check(
        'every stored body is the bytes sent, under its event name',
        wrongBody === 0,
        `${wrongBody} differ`,
      ),
      check(
        'nothing stored that was not sent, nothing twice',
        foreign === 0 && doubles === 0,
        `${foreign} foreign, ${doubles} doubled`,
      ),
      check(
        'every payment and rejection stored exactly once by its key, in its table, with its Webhookid',
        keyedOnce === wanted.length &&
          distinctWanted === wanted.length &&
          stored.business.length === wanted.length,
        `${keyedOnce} of ${wanted.length}; ${stored.business.length} rows`,
      ),
      check(
        'nothing quarantined, no conflicts',
        stored.quarantined === 0 && stored.conflicts === 0,
        `${stored.quarantined} / ${stored.conflicts}`,
      ),
    ],
  };
}

/**
 * A to C: what the harness's sender saw (every attempt's answer) against what is stored, then
 * the storage itself. The counts A checks besides are returned too.
 */
export function judgeLoad(sends: Send[], stored: StoredRows, withRetry: boolean) {
  const isStored = (id: string) => stored.deliveries.has(id);
  const requestIds = new Map<string, Set<string>>();
  const firstTry = new Map<string, number>();
  const retry = new Map<string, number>();
  const failedThroughout = new Map<string, boolean>();
  let answered200 = 0;
  let duplicatesAbsorbed = 0;
  let okWithoutRow = 0;
  let nginxRetries = 0;
  let fourXX = 0;
  for (const send of sends) {
    const id = send.delivery.webhookId;
    requestIds.set(id, new Set([...(requestIds.get(id) ?? []), ...send.requestIds]));
    tally(firstTry, outcomeOf(send.attempts[0]));
    if (send.attempts.length > 1) tally(retry, outcomeOf(send.attempts[1]));
    const got200 = send.attempts.some((answer) => answer.status === 200);
    failedThroughout.set(id, (failedThroughout.get(id) ?? true) && !got200);
    if (got200) answered200 += 1;
    if (got200 && !isStored(id)) okWithoutRow += 1;
    for (const answer of send.attempts) {
      if (answer.body.includes('Delivery already received')) duplicatesAbsorbed += 1;
      // nginx sent the attempt to the second instance after the first failed.
      if (answer.upstreams.length > 1) nginxRetries += 1;
      if (answer.status !== undefined && answer.status >= 400 && answer.status < 500) fourXX += 1;
    }
  }
  const failedFirstTry = sends.filter((send) => send.attempts[0]?.status !== 200).length;
  const retried = sends.filter((send) => send.attempts.length > 1);
  const storedAfterRetry = retried.filter(
    (send) => send.attempts[1]?.status === 200 && isStored(send.delivery.webhookId),
  ).length;
  // Every answer a failure, yet the row exists: committed, then the answer was cut off.
  const storedDespiteFailure = [...failedThroughout].filter(
    ([id, failed]) => failed && isStored(id),
  ).length;
  const rows = [...stored.deliveries].flatMap(([id, list]) => list.map((row) => ({ id, ...row })));
  const requestIdKept = rows.filter(
    (row) => row.requestId && requestIds.get(row.id)?.has(row.requestId),
  ).length;
  const forwardedForKept = rows.filter((row) => row.remoteAddress === SENDER_ADDRESS).length;
  const storage = judgeStorage(
    sends.map((send) => send.delivery),
    stored,
  );
  const figures: FigureRow[] = [
    ['sent (first tries, duplicates included)', sends.length],
    ['answered 200 (on some attempt)', answered200],
    ['first-try answers by status', histogram(firstTry)],
    ...(withRetry
      ? ([
          ['failed first try', failedFirstTry],
          ['retried (once, by the sender)', retried.length],
          ['retry answers by status', retried.length > 0 ? histogram(retry) : '-'],
          ['stored after retry', storedAfterRetry],
        ] as const)
      : []),
    ['nginx re-sent to the other instance', nginxRetries],
    ['duplicates absorbed (200 "already received")', duplicatesAbsorbed],
    ['stored although every answer was a failure', storedDespiteFailure],
    ['200 without a row', okWithoutRow],
    ...storage.figures,
  ];
  const checks: Check[] = [
    check('no 400/401/4xx answer to a genuine delivery', fourXX === 0, `${fourXX} seen`),
    check('every 200 has its row', okWithoutRow === 0, `${okWithoutRow} without`),
    check(
      'X-Request-Id reaches the receiver through nginx',
      requestIdKept === rows.length,
      `${requestIdKept} of ${rows.length} rows`,
    ),
    check(
      `X-Forwarded-For reaches the receiver (remote_address ${SENDER_ADDRESS})`,
      forwardedForKept === rows.length,
      `${forwardedForKept} of ${rows.length} rows`,
    ),
    ...storage.checks,
  ];
  return { figures, checks, answers: { answered200, failedFirstTry, duplicatesAbsorbed } };
}
