const WELL_FORMED_EVENT_NAME = /^[A-Za-z0-9]{1,64}$/;

/** Route check 1: an event name is letters and digits only, 1-64 of them. */
export function isWellFormedEventName(name: string): boolean {
  return WELL_FORMED_EVENT_NAME.test(name);
}
