/**
 * A number of deliveries as people write it on a command line: `2m`, `200k`, `1.5m`, `50000`,
 * `2_000_000` or `2,000,000`. Undefined when it is not a whole number of deliveries.
 */
export function parseDeliveryCount(raw: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(raw.trim().replace(/[_,]/g, ''));
  if (!match?.[1]) return undefined;
  const scale = { '': 1, k: 1_000, m: 1_000_000 }[(match[2] ?? '').toLowerCase()] ?? 1;
  // 1.5m is exact in decimal but not in binary floating point: round what is meant to be whole.
  const value = Math.round(Number(match[1]) * scale * 1000) / 1000;
  return Number.isSafeInteger(value) ? value : undefined;
}

/**
 * The most --stored accepts. Seeded Webhookids and TransactionIds live in ranges the load's
 * deliveries never reach (stored/seed-keys.ts) only up to here; 50 million is also about 100 GB.
 */
export const MAX_STORED = 50_000_000;
