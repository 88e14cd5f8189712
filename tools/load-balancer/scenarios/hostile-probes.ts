import http from 'node:http';
import { signBody } from '../../common/signing.ts';
import { post } from '../core/http-post.ts';
import { histogram, tally } from '../core/report.ts';
import { deliveryHeaders, webhookUrl } from '../core/sender.ts';
import type { PlannedDelivery } from '../core/workload.ts';
import type { ScenarioContext } from './context.ts';

const EACH = 10;

export interface ProbeResult {
  sent: number;
  all401: boolean;
  statuses: string;
  webhookIds: string[];
}

/**
 * A few forgeries through nginx, to drive the receivers' 401 path (the one that logs at warn):
 * the secret with one character more (a log that echoed the presented value would leak the real
 * secret), and the right secret with a real signature over other bytes. Neither may be stored.
 */
export async function sendHostileProbes(
  context: ScenarioContext,
  next: () => PlannedDelivery,
): Promise<ProbeResult> {
  const { stack } = context;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const statuses = new Map<string, number>();
  const webhookIds: string[] = [];
  try {
    for (let i = 0; i < EACH * 2; i += 1) {
      const delivery = next();
      webhookIds.push(delivery.webhookId);
      const wrongSecret = i % 2 === 0;
      const otherSignature = signBody(
        Buffer.from(`{"not":"this body ${i}"}`),
        stack.signer.privateKey,
      );
      stack.leaks.addSignature(otherSignature);
      const answer = await post({
        url: webhookUrl(stack.nginxUrl, delivery),
        agent,
        timeoutMs: 10_000,
        body: delivery.body,
        headers: deliveryHeaders(
          delivery,
          wrongSecret ? `${stack.secret}x` : stack.secret,
          wrongSecret ? delivery.signature : otherSignature,
          `lb-probe-${delivery.webhookId}`,
        ),
      });
      context.onBody(answer.body);
      tally(
        statuses,
        answer.status !== undefined ? String(answer.status) : `error ${answer.error}`,
      );
    }
  } finally {
    agent.destroy();
  }
  return {
    sent: EACH * 2,
    all401: statuses.get('401') === EACH * 2,
    statuses: histogram(statuses),
    webhookIds,
  };
}
