import { SENDER_ADDRESS } from './http-post.ts';
import { outcomeOf, type Send } from './sender.ts';
import type { StoredRows } from './stored.ts';

export interface Check {
  name: string;
  ok: boolean;
  detail?: string;
}

/** The figures every scenario prints, from what the sender saw and what the database holds. */
export interface Figures {
  sent: number;
  distinct: number;
  firstTry: Map<string, number>;
  retry: Map<string, number>;
  answered200: number;
  duplicatesAbsorbed: number;
  rowsStored: number;
  failedFirstTry: number;
  retried: number;
  storedAfterRetry: number;
  /** Distinct deliveries with no row: what the platform would have lost for good. */
  lost: number;
  /** Sends that got a 200 on some attempt though their delivery has no row. */
  okWithoutRow: number;
  /** Deliveries whose every answer was a failure, yet the row exists (committed, then cut off). */
  storedDespiteFailure: number;
  /** Attempts nginx sent to the second instance after the first failed. */
  nginxRetries: number;
  fourXX: number;
  paymentsStored: number;
  paymentsExpected: number;
  rejectionsStored: number;
  rejectionsExpected: number;
  /** Rows of deliveries the sender never sent, or with a body other than the one sent. */
  foreignRows: number;
  doubles: number;
  quarantined: number;
  /** Rows whose request_id is one the sender set (X-Request-Id passed through nginx). */
  requestIdKept: number;
  /** Rows whose remote_address is the sender's (X-Forwarded-For passed through nginx). */
  forwardedForKept: number;
}

export function figuresOf(sends: Send[], stored: StoredRows): Figures {
  const deliveries = new Map(sends.map((send) => [send.delivery.webhookId, send.delivery]));
  const requestIds = new Map<string, Set<string>>();
  const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  const firstTry = new Map<string, number>();
  const retry = new Map<string, number>();
  const failedDeliveries = new Map<string, boolean>();
  let answered200 = 0;
  let duplicatesAbsorbed = 0;
  let okWithoutRow = 0;
  let nginxRetries = 0;
  let fourXX = 0;
  for (const send of sends) {
    const id = send.delivery.webhookId;
    const ids = requestIds.get(id) ?? new Set<string>();
    send.requestIds.forEach((requestId) => ids.add(requestId));
    requestIds.set(id, ids);
    count(firstTry, outcomeOf(send.attempts[0]));
    if (send.attempts.length > 1) count(retry, outcomeOf(send.attempts[1]));
    const got200 = send.attempts.some((answer) => answer.status === 200);
    failedDeliveries.set(id, (failedDeliveries.get(id) ?? true) && !got200);
    if (got200) answered200 += 1;
    if (got200 && !stored.deliveries.has(id)) okWithoutRow += 1;
    for (const answer of send.attempts) {
      if (answer.body.includes('Delivery already received')) duplicatesAbsorbed += 1;
      if (answer.upstream?.includes(',')) nginxRetries += 1;
      if (answer.status !== undefined && answer.status >= 400 && answer.status < 500) fourXX += 1;
    }
  }
  const retriedSends = sends.filter((send) => send.attempts.length > 1);
  const all = [...deliveries.values()];
  const rows = [...stored.deliveries.entries()];
  return {
    sent: sends.length,
    distinct: deliveries.size,
    firstTry,
    retry,
    answered200,
    duplicatesAbsorbed,
    rowsStored: stored.deliveries.size,
    failedFirstTry: sends.filter((send) => send.attempts[0]?.status !== 200).length,
    retried: retriedSends.length,
    storedAfterRetry: retriedSends.filter(
      (send) => send.attempts[1]?.status === 200 && stored.deliveries.has(send.delivery.webhookId),
    ).length,
    lost: all.filter((delivery) => !stored.deliveries.has(delivery.webhookId)).length,
    okWithoutRow,
    storedDespiteFailure: [...failedDeliveries.entries()].filter(
      ([id, failed]) => failed && stored.deliveries.has(id),
    ).length,
    nginxRetries,
    fourXX,
    paymentsStored: stored.payments.size,
    paymentsExpected: new Set(all.flatMap((delivery) => delivery.transactionIds)).size,
    rejectionsStored: stored.rejections.size,
    rejectionsExpected: new Set(all.flatMap((delivery) => delivery.rejectionIds)).size,
    foreignRows: rows.filter(([id, row]) => deliveries.get(id)?.sha256 !== row.sha256).length,
    doubles: stored.doubles,
    quarantined: stored.quarantined,
    requestIdKept: rows.filter(
      ([id, row]) => row.requestId && requestIds.get(id)?.has(row.requestId),
    ).length,
    forwardedForKept: rows.filter(([, row]) => row.remoteAddress === SENDER_ADDRESS).length,
  };
}

/** What must hold in every scenario: nothing lost, nothing twice, no 4xx, every 200 backed by a row. */
export function storageChecks(f: Figures): Check[] {
  return [
    check('no 400/401/4xx answer to a genuine delivery', f.fourXX === 0, `${f.fourXX} seen`),
    check('every 200 has its row', f.okWithoutRow === 0, `${f.okWithoutRow} without`),
    check('nothing lost: every delivery stored', f.lost === 0, `${f.lost} lost`),
    check(
      'rows stored == distinct Webhookids',
      f.rowsStored === f.distinct,
      `${f.rowsStored} vs ${f.distinct}`,
    ),
    check(
      'npp_payments == distinct TransactionIds',
      f.paymentsStored === f.paymentsExpected,
      `${f.paymentsStored} vs ${f.paymentsExpected}`,
    ),
    check(
      'credit_rejections == distinct rejection ids',
      f.rejectionsStored === f.rejectionsExpected,
      `${f.rejectionsStored} vs ${f.rejectionsExpected}`,
    ),
    check('nothing stored twice', f.doubles === 0, `${f.doubles} doubles`),
    check(
      'no row with a body or id the sender did not send',
      f.foreignRows === 0,
      `${f.foreignRows}`,
    ),
    check('nothing quarantined', f.quarantined === 0, `${f.quarantined}`),
    check(
      'X-Request-Id reaches the receiver through nginx',
      f.requestIdKept === f.rowsStored,
      `${f.requestIdKept} of ${f.rowsStored} rows`,
    ),
    check(
      `X-Forwarded-For reaches the receiver (remote_address ${SENDER_ADDRESS})`,
      f.forwardedForKept === f.rowsStored,
      `${f.forwardedForKept} of ${f.rowsStored} rows`,
    ),
  ];
}

export function check(name: string, ok: boolean, detail?: string): Check {
  return detail === undefined ? { name, ok } : { name, ok, detail };
}
