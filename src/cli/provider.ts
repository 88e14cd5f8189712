/**
 * npm run provider -- <command> [options]     (npm run provider -- --help)
 *
 * Calls the platform's API with the configured credentials (PROVIDER_* variables): PayID
 * enquiry, wallets, refunds of stored payments, the PayTo report, subscriptions, the delivery
 * report and resends. See docs/provider-client.md.
 */
import type { OperatorIo } from '../lib/command-options.ts';
import { PROVIDER_COMMANDS, runCli } from '../platform/index.ts';
import { loadOperatorConfig } from './config.ts';

export function run(io: OperatorIo): Promise<number> {
  return runCli('provider', PROVIDER_COMMANDS, io, loadOperatorConfig);
}
