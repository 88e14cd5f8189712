import { lenientObject, text } from './lenient.ts';

const PAY_ID_STATES = ['Enable', 'Disable', 'Deregister', 'Port'] as const;

/**
 * A PayID's details. The public (v1) reference answers in PascalCase and calls the PayID's
 * state `Status`, the name the envelope uses: a `status` that is a PayID state is read as
 * `payIdStatus` and is not a failure (see `isPayIdState`).
 */
export const payIdResponse = lenientObject(
  {
    bankAccountNumber: text,
    payIdName: text,
    payIdStatus: text,
    registrationDateTime: text,
    lastUpdatedDateTime: text,
    lastResolutionDateTime: text,
    ledgerAccountNumber: text,
    ledgerUniqueReference: text,
  },
  { payIdStatus: ['PayIdStatus', 'Status'] },
).transform(({ payIdStatus, ...rest }) => ({
  ...rest,
  payIdStatus: payIdStatus !== undefined && isPayIdState(payIdStatus) ? payIdStatus : undefined,
}));

export function isPayIdState(status: string): boolean {
  return PAY_ID_STATES.some((state) => state.toLowerCase() === status.trim().toLowerCase());
}
