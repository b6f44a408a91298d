import type { DecisionRequest } from '../core/decision/request.js';
import { invalidField } from '../core/errors.js';
import { formatUsd, MAX_MICROS, parseUsd, type Micros } from '../core/money.js';
import { resolvePointer } from '../core/json-pointer.js';

/**
 * An operation whose amount is one of its params (`amount: {param: /amount_cents, unit:
 * cents}` in the integration-operations document). The provider is paid what the params
 * say, so the daemon judges that figure instead of the requester's own estimate.
 */
export interface AmountSpec {
  /** JSON pointer into the request's params */
  param: string;
  /** cents: a whole number of cents; usd: USD with at most 6 decimal places */
  unit: 'cents' | 'usd';
}

const MICROS_PER_CENT = 10_000n;

/** `/amount_cents` -> `params.amount_cents`: the field a refusal names. */
export function paramField(pointer: string): string {
  const tokens = pointer
    .slice(1)
    .split('/')
    .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
  return ['params', ...tokens].join('.');
}

/** The amount the params commit the provider to, in micros; a 400 naming the param otherwise. */
export function amountFromParams(
  spec: AmountSpec,
  params: Record<string, unknown> | null,
  op: string,
): Micros {
  const field = paramField(spec.param);
  const value = resolvePointer(params ?? {}, spec.param);
  if (value === undefined) {
    throw invalidField(field, `the amount in ${spec.unit} (the operation ${op} takes its amount from it)`);
  }
  if (spec.unit === 'usd') return parseUsd(value, field);
  const cents = `a whole number of cents from 0 to ${MAX_MICROS / MICROS_PER_CENT}`;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw invalidField(field, `${cents}, got ${JSON.stringify(value) ?? typeof value}`);
  }
  const micros = BigInt(value) * MICROS_PER_CENT;
  if (micros > MAX_MICROS) throw invalidField(field, `${cents}, got ${value}`);
  return micros;
}

/**
 * The request as the decision judges it when its operation derives the amount: budget,
 * policy, constraints and the approval all see the derived figure. A requester that states
 * another amount is refused rather than corrected, so no figure it shows anyone is wrong.
 */
export function withDerivedAmount(req: DecisionRequest, spec: AmountSpec, op: string): DecisionRequest {
  const derived = amountFromParams(spec, req.params, op);
  if (req.amountMicros !== null && req.amountMicros !== derived) {
    throw invalidField(
      'amount_usd',
      `${formatUsd(derived)}, the amount ${paramField(spec.param)} commits the operation ${op} to (or omit amount_usd)`,
    );
  }
  return { ...req, amountMicros: derived, amountSource: 'params' };
}
