import type { EndpointKind } from '../tables.ts';
import { createHttpSink } from './http-sink.ts';
import type { Sink } from './sink.ts';

/** What a sink is made from: an endpoint's kind, target and broker settings. */
export interface SinkTarget {
  kind: EndpointKind;
  /** http: the URL; a broker: its server URL, without credentials. */
  target: string;
  options: Readonly<Record<string, unknown>>;
  /** A broker's password or token (never logged). */
  credentials: string | null;
}

type SinkFactory = (target: SinkTarget) => Sink;

const FACTORIES: Record<EndpointKind, SinkFactory> = {
  http: ({ target }) => createHttpSink(target),
  nats: () => notAvailable('nats'),
  rabbitmq: () => notAvailable('rabbitmq'),
};

function notAvailable(kind: EndpointKind): never {
  throw new Error(`${kind} endpoints are not available in this build`);
}

/** The sink for one endpoint; throws when its kind cannot be served here. */
export function createSink(target: SinkTarget): Sink {
  return FACTORIES[target.kind](target);
}
