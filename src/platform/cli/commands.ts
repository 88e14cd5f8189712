import type { Command } from './command.ts';
import { refund, refunds } from './refund-command.ts';
import { refundResolve } from './refund-resolve-command.ts';
import { deliveryReport, payIdEnquiry, paytoReport, walletSearch } from './read-commands.ts';
import { resend, subscriptions, token, walletUpdate } from './write-commands.ts';

/** Every `npm run provider` command, in the order `--help` lists them. */
export const PROVIDER_COMMANDS: readonly Command[] = [
  payIdEnquiry,
  walletSearch,
  walletUpdate,
  refund,
  refunds,
  refundResolve,
  paytoReport,
  subscriptions,
  deliveryReport,
  resend,
  token,
];
