/**
 * npm run provider -- <command> [options]     (npm run provider -- --help)
 *
 * Calls the platform's API with the configured credentials (PROVIDER_* variables): PayID
 * enquiry, wallets, refunds of stored payments, the PayTo report, subscriptions, the delivery
 * report and resends. See docs/provider-client.md.
 */
import type { OperatorIo } from '../lib/command-line/command-description.ts';
import { providerCommand } from '../platform/index.ts';
import { loadOperatorConfig } from './config.ts';

export const command = (io: OperatorIo) => providerCommand(io, loadOperatorConfig);
