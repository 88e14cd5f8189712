/**
 * A realistic NPPReceivePayment body for delivery number `index`: the platform's field names and
 * value shapes, 500-600 bytes, every TransactionId, EndToEndId and ReceiptNumber distinct. The
 * variety is derived from the index (no Math.random) so every run sends the same bytes. The
 * benchmark signs and sends these; tools/bench/seed-2m.sql writes bodies of the same shape.
 */

const REMITTERS = ['JANE CITIZEN', 'DUNCAN CITIZEN', 'MARIA NGUYEN', 'OLIVER SMITH PTY LTD'];
const DESCRIPTIONS = ['INV-', 'Order ', 'Rent ', 'Sub '];

export function paymentBody(index: number): string {
  const mix = scramble(index);
  const remitter = REMITTERS[mix % REMITTERS.length] ?? 'JANE CITIZEN';
  const cents = 100 + (mix % 2_500_000);
  const day = 1 + (mix % 28);
  const second = mix % 86_400;
  return JSON.stringify({
    TransactionId: `N${String(100_000_000_00 + index).padStart(11, '0')}`,
    DateTime: `2026-03-${pad(day)}T${pad(Math.floor(second / 3600))}:${pad(Math.floor(second / 60) % 60)}:${pad(second % 60)}.${String(mix % 10_000_000).padStart(7, '0')}`,
    RemitterName: remitter,
    Amount: Number((cents / 100).toFixed(2)),
    AccountName: 'Acme Receivables',
    AccountNumber: '419001918',
    Bsb: '802-985',
    PaymentDescription: `${DESCRIPTIONS[mix % DESCRIPTIONS.length] ?? 'INV-'}${10_000 + (index % 90_000)}`,
    PayId: 'pay@acme.com.au',
    PayIdName: 'ACME PTY LTD',
    SourceBsb: '062-000',
    SourceAccountNumber: String(10_000_000 + (mix % 89_999_999)),
    SourceAccountName: remitter,
    EndToEndId: `E2E-202603${pad(day)}-${index}`,
    CategoryPurposeCode: null,
    CreditorReferenceInformation: null,
    USINumber: null,
    USICreditorScheme: null,
    UltimateCreditorName: null,
    ReceiptNumber: 5_000_000 + index,
  });
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}

/** A cheap, fixed integer hash: spreads consecutive indexes over the value ranges above. */
function scramble(index: number): number {
  let x = (index + 0x9e3779b9) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b) >>> 0;
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}
