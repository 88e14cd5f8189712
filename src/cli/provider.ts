/**
 * npm run provider -- <command> [options]     (npm run provider -- --help)
 *
 * Calls the platform's API with the configured credentials (PROVIDER_* variables): PayID
 * enquiry, wallets, refunds of stored payments, the PayTo report, subscriptions, the delivery
 * report and resends. See docs/provider-client.md.
 */
export { providerCommand as command } from '../platform/index.ts';
