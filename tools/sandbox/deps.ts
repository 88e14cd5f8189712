import type { SandboxClock } from './clock.ts';
import type { Credentials } from './credentials.ts';
import type { Dialect } from './dialect.ts';
import type { Faults } from './faults.ts';
import type { SandboxKeys } from './keys.ts';
import type { SandboxStore } from './state/store.ts';
import type { TokenIssuer } from './token.ts';
import type { DeliveryEngine } from './webhooks/delivery-engine.ts';
import type { Notifier } from './webhooks/notifier.ts';

/** What the routes work with; built once per sandbox by createSandbox. */
export interface SandboxDeps {
  clock: SandboxClock;
  store: SandboxStore;
  keys: SandboxKeys;
  credentials: Credentials;
  tokens: TokenIssuer;
  faults: Faults;
  engine: DeliveryEngine;
  notifier: Notifier;
  /** The longest a control call with `?wait=true` waits for its deliveries to finish. */
  waitLimitMs: number;
  /** Which requests the platform endpoints accept and how they answer (dialect.ts). */
  dialect: Dialect;
}
