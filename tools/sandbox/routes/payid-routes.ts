import { Router } from 'express';
import type { SandboxDeps } from '../services/deps.ts';
import type { Dialect } from '../core/dialect.ts';
import { sendError, sendOk } from '../core/envelope.ts';
import type { PayIdRecord } from '../state/types.ts';
import { PAYID_ENQUIRY_SCHEMAS } from '../validation/payid-schema.ts';
import { validate } from '../validation/patterns.ts';

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

function camelCase(p: PayIdRecord): Record<string, unknown> {
  return {
    bankAccountNumber: p.bankAccountNumber,
    payIdName: p.payIdName,
    payIdStatus: p.payIdStatus,
    registrationDateTime: iso(p.registeredAtMs),
    lastUpdatedDateTime: iso(p.updatedAtMs),
    ...(p.lastResolvedAtMs !== undefined && { lastResolutionDateTime: iso(p.lastResolvedAtMs) }),
    ...(p.ledgerAccountNumber !== undefined && { ledgerAccountNumber: p.ledgerAccountNumber }),
    ...(p.ledgerUniqueReference !== undefined && {
      ledgerUniqueReference: p.ledgerUniqueReference,
    }),
  };
}

/** The public reference's v1 answers in PascalCase, with `Status` for the PayID's status. */
function pascalCase(p: PayIdRecord): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(camelCase(p)).map(([key, value]) => [
      key === 'payIdStatus' ? 'Status' : key[0]!.toUpperCase() + key.slice(1),
      value,
    ]),
  );
}

/**
 * Which versions each dialect serves: the interface only v2, the public reference only v1; the
 * other answers 404 like any unknown path.
 */
const VERSIONS: Record<Dialect, readonly ('v1' | 'v2')[]> = {
  any: ['v1', 'v2'],
  interface: ['v2'],
  public: ['v1'],
};

/** PayID Enquiry, v2 (the interface) and v1 (the public reference). The caller must own it. */
export function payIdRoutes(deps: SandboxDeps): Router {
  const router = Router();
  for (const version of VERSIONS[deps.dialect]) {
    router.post(`/receivables/${version}/payid/payIdEnquiry`, (req, res) => {
      const body = validate(PAYID_ENQUIRY_SCHEMAS[deps.dialect], req.body);
      if (!body.ok) return sendError(res, 400, 'Validation failed', { problems: body.problems });
      const payId = body.value.payId.toLowerCase();
      const found = deps.store.state.payIds.find((p) => p.payId === payId);
      if (!found) return sendError(res, 400, 'PayID not found for this account');
      sendOk(res, version === 'v1' ? pascalCase(found) : camelCase(found));
    });
  }
  return router;
}
