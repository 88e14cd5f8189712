import { natsSinkFor, rabbitMqSinkFor } from './broker-sinks.ts';
import { createHttpSink } from './http-sink.ts';
import type { Sink } from './sink.ts';

/** What an endpoint is: a URL to POST to, or a broker to publish into. */
type SinkKind = 'http' | 'nats' | 'rabbitmq';

/** What a sink is made from: an endpoint's kind, target and broker settings. */
export interface SinkTarget {
  kind: SinkKind;
  /** http: the URL; a broker: its server URL, without credentials. */
  target: string;
  options: Readonly<Record<string, unknown>>;
  /** A broker's password or token (never logged). */
  credentials: string | null;
}

type SinkFactory = (target: SinkTarget) => Sink;

const FACTORIES: Record<SinkKind, SinkFactory> = {
  http: ({ target }) => createHttpSink(target),
  nats: natsSinkFor,
  rabbitmq: rabbitMqSinkFor,
};

/** The sink for one endpoint (a broker's connects on its first send). */
export function createSink(target: SinkTarget): Sink {
  return FACTORIES[target.kind](target);
}
