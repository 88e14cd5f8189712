import { UsageError } from '../../lib/command-line/errors.ts';
import { optional, required, type Command } from './command.ts';
import { optionalFields } from './read-commands.ts';

export const token: Command = {
  name: 'token',
  summary:
    'Signs in once (Basic mAccount:API key) and prints when the bearer token expires; never the token. A refused sign-in counts towards the account lock-out.',
  options: {},
  run: ({ client }) => client.signIn(),
};

export const walletUpdate: Command = {
  name: 'wallet-update',
  summary:
    "Updates a wallet's details. The wallet's 4-digit pin is read from WALLET_PIN (never an argument: arguments show in process lists).",
  options: {
    'account-number': { type: 'string', help: '16-digit wallet number, required' },
    name: { type: 'string', help: 'full name' },
    'nick-name': { type: 'string', help: 'short name (may be empty)' },
    phone: { type: 'string', help: 'contact phone, 0 + 9 digits (with --email)' },
    email: { type: 'string', help: 'contact email (with --phone)' },
    abn: { type: 'string', help: '11-digit ABN' },
    option: {
      type: 'string',
      multiple: true,
      help: 'key=value (repeatable), e.g. MobileForSms=0412345678',
    },
  },
  run: ({ client, env }, values) => {
    const pin = env.WALLET_PIN;
    if (!pin) throw new UsageError('set WALLET_PIN to the wallet pin');
    const options = ((values.option as string[] | undefined) ?? []).map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new UsageError('--option must be key=value');
      return { key: pair.slice(0, at), value: pair.slice(at + 1) };
    });
    return client.walletUpdate({
      accountNumber: required(values, 'account-number'),
      pin,
      ...optionalFields({
        name: optional(values, 'name'),
        nickName: optional(values, 'nick-name'),
        phone: optional(values, 'phone'),
        email: optional(values, 'email'),
        abn: optional(values, 'abn'),
      }),
      ...(options.length > 0 && { options }),
    });
  },
};

export const subscriptions: Command = {
  name: 'subscriptions',
  summary:
    "Subscribes this receiver to an event. The subscription's security token (echoed in Authorisation on every callback: put the same value in WEBHOOK_SECRETS) is read from SUBSCRIPTION_SECURITY_TOKEN.",
  options: {
    event: { type: 'string', help: 'event name, e.g. NPPReceivePayment, required' },
    'target-url': {
      type: 'string',
      help: 'https://<host>/webhooks/<event>, required; http://127.0.0.1:<port>/… too when the platform is local (PROVIDER_ENV=local)',
    },
    off: { type: 'boolean', help: 'create it switched off' },
  },
  run: ({ client, env }, values) =>
    client.createSubscription({
      eventName: required(values, 'event'),
      targetUrl: required(values, 'target-url'),
      subscriptionStatus: values.off === true ? 'Off' : 'On',
      ...optionalFields({ securityToken: env.SUBSCRIPTION_SECURITY_TOKEN || undefined }),
    }),
};

export const resend: Command = {
  name: 'resend',
  summary:
    'Asks the platform to deliver a notification again (same Webhookid); the receiver stores it once.',
  options: { 'webhook-id': { type: 'string', help: 'the Webhookid, required' } },
  run: ({ client }, values) => client.resend({ webhookId: required(values, 'webhook-id') }),
};
