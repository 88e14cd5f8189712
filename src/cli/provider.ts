/**
 * npm run provider -- <command> [options]     (npm run provider -- --help)
 *
 * Calls the platform's API with the configured credentials (PROVIDER_* variables): PayID
 * enquiry, wallets, refunds of stored payments, the PayTo report, subscriptions, the delivery
 * report and resends. See docs/provider-client.md.
 */
import { PROVIDER_COMMANDS } from '../platform/index.ts';
import { runCli } from '../platform/index.ts';
import { runWithProcessIo } from './process-io.ts';

runWithProcessIo((io) => runCli('provider', PROVIDER_COMMANDS, io));
