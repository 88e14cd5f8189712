import { findEventModel } from '../../src/receiver/events/registry.ts';
import type { EventModel } from '../../src/receiver/events/types.ts';

/** A modelled event's parser, as the registry builds it from its table's contract. */
export function eventModel(name: string): EventModel {
  const model = findEventModel(name);
  if (model === undefined) throw new Error(`${name} is not a modelled event`);
  return model;
}
