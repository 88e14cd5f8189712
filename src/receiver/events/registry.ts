import { EVENT_TYPES } from './event-types.ts';
import type { EventModel } from './types.ts';
import { isWellFormedEventName } from './event-name.ts';

/** Every modelled event's parser, from the registry of event types. */
const MODELS: readonly EventModel[] = Object.freeze(EVENT_TYPES.map((entry) => entry.model));

/**
 * The model for an event name, matched without regard to case: the provider spells the same
 * event "NPPCreditRejections" in one document and "NppCreditRejections" in another. The model
 * carries the canonical spelling, which is what gets stored. Undefined for an event that is not
 * modelled (or a malformed name; the ASCII check keeps e.g. the Kelvin sign, which lower-cases
 * to "k", from matching).
 */
export function findEventModel(eventName: string): EventModel | undefined {
  if (!isWellFormedEventName(eventName)) return undefined;
  const wanted = eventName.toLowerCase();
  return MODELS.find((model) => model.name.toLowerCase() === wanted);
}
