import { keyFingerprint } from '../../src/receiver/index.ts';
import { startKeyServer, type KeyServer } from '../common/key-server.ts';
import { planSimulation, type PlanOptions } from './plan.ts';
import { runSimulation, type RunOptions } from './run-simulation.ts';
import { loadOrCreateSigningKey } from '../common/signing-key-file.ts';
import type { SimulationSummary } from './summary.ts';

export interface SimulateOptions extends PlanOptions, RunOptions {
  keyFile?: string;
  saveKey?: boolean;
  keyHost: string;
  keyPort: number;
}

export interface Simulator {
  keyServer: KeyServer;
  keyOrigin: string;
  /** SHA-256 of the public key's SPKI DER, as the receiver logs it. */
  fingerprint: string;
  /**
   * Sends every planned delivery (options may be overridden, e.g. a receiver URL known only
   * now); the key endpoint stays up until keyServer.close().
   */
  run(overrides?: Partial<RunOptions>): Promise<SimulationSummary>;
}

/** The stand-in platform: its key endpoint is up once this resolves, deliveries go on run(). */
export async function startSimulator(options: SimulateOptions): Promise<Simulator> {
  const key = await loadOrCreateSigningKey({
    ...(options.keyFile !== undefined && { keyFile: options.keyFile }),
    ...(options.saveKey !== undefined && { saveKey: options.saveKey }),
  });
  const keyServer = await startKeyServer(key.publicKey, {
    host: options.keyHost,
    port: options.keyPort,
  });
  return {
    keyServer,
    keyOrigin: key.origin,
    fingerprint: keyFingerprint(key.publicKey),
    run: (overrides = {}) =>
      runSimulation(planSimulation(options, key.privateKey), { ...options, ...overrides }),
  };
}
