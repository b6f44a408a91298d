/**
 * Amounts as the evidence format writes them (evidence-format.md §1): the daemon keeps
 * integer micro-dollars, and `amount_usd` is that integer divided by 1,000,000, written as a
 * JSON number. Core's money module re-exports these; evidence imports nothing from core.
 */
export const MICROS_PER_USD = 1_000_000n;
export const DECIMALS = 6;

/** Micros as a JSON number of USD, for API bodies and the export (`amount_usd`). */
export function formatUsd(micros: bigint): number {
  // Within 2^53 both conversions give the double nearest to micros / 10^6: the bigint and 1e6
  // are exact doubles and IEEE division rounds correctly, as parsing the exact decimal text
  // does. Beyond it the first conversion would round once more, so the text is parsed.
  if (micros <= EXACT_MICROS && micros >= -EXACT_MICROS) return Number(micros) / 1e6;
  return Number(microsToDecimal(micros));
}

const EXACT_MICROS = BigInt(Number.MAX_SAFE_INTEGER);

/** Exact decimal text of micros in USD, without trailing zeros: 12500000n -> "12.5". */
export function microsToDecimal(micros: bigint): string {
  const sign = micros < 0n ? '-' : '';
  const abs = micros < 0n ? -micros : micros;
  const whole = abs / MICROS_PER_USD;
  const fraction = (abs % MICROS_PER_USD).toString().padStart(DECIMALS, '0').replace(/0+$/, '');
  return fraction === '' ? `${sign}${whole}` : `${sign}${whole}.${fraction}`;
}
