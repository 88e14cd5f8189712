import type { SandboxClock } from '../core/clock.ts';
import type { Credentials } from '../core/credentials.ts';
import type { Dialect } from '../core/dialect.ts';
import type { Faults } from '../core/faults.ts';
import type { SandboxKeys } from '../core/keys.ts';
import type { SandboxStore } from '../state/store.ts';
import type { TokenIssuer } from '../core/token.ts';
import type { DeliveryEngine } from '../webhooks/delivery-engine.ts';
import type { Notifier } from '../webhooks/notifier.ts';

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
