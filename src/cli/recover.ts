/**
 * npm run recover -- [--date YYYY-MM-DD ...] [--skip-payto]     (npm run recover -- --help)
 *
 * Asks the platform to resend notifications the receiver missed, and lists PayTo receipts that
 * no webhook brought. See the README and docs/provider-client.md, "Recovery".
 */
export { recoverCommand as command } from '../platform/index.ts';
