import { inboundDirectCreditRejections, nppCreditRejections } from './credit-rejection.ts';
import { nppReceivePayment, payToReceivePayment } from './npp-receive-payment.ts';
import type { EventModel } from './types.ts';

const MODELS: readonly EventModel[] = Object.freeze([
  nppReceivePayment,
  payToReceivePayment,
  inboundDirectCreditRejections,
  nppCreditRejections,
]);

const WELL_FORMED_EVENT_NAME = /^[A-Za-z0-9]{1,64}$/;

/** Route check 1: an event name is letters and digits only, 1-64 of them. */
export function isWellFormedEventName(name: string): boolean {
  return WELL_FORMED_EVENT_NAME.test(name);
}

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
