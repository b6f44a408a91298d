import { CAPABILITY_NAME, VERB } from '../core/capability.js';
import { SLUG } from '../core/ids.js';
import { firstMalformedString, isAcceptedText } from '../core/request-text.js';
import { ACTION_STEP, type ActionRequestBody } from './decision.js';

const MEMBERS = new Set([
  'tenant_id',
  'actor_id',
  'capability',
  'action',
  'task_id',
  'effect_key_step',
  'amount_usd',
  'intent',
  'params',
  'correlation_id',
  'trace_id',
]);

const matches = (v: unknown, re: RegExp): v is string => typeof v === 'string' && re.test(v);
const textUpTo = (v: unknown, max: number): v is string =>
  typeof v === 'string' && v.length <= max && isAcceptedText(v);
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

/**
 * The `ActionRequestBody` schema's output for a body it certainly accepts, with no refused
 * text (a lone surrogate or NUL, see `isAcceptedText`) anywhere; `undefined` for anything else, which then takes the schema's own path
 * (the text scan and zod), so every refusal keeps its exact message and field. Every
 * decision runs this instead of zod: same output, a fraction of the cost. A property test
 * holds it to the schema (anything it accepts, the schema accepts with the same output).
 */
export function acceptActionRequest(value: unknown): ActionRequestBody | undefined {
  if (!isRecord(value)) return undefined;
  for (const key in value) if (!MEMBERS.has(key)) return undefined;
  const v = value;
  if (
    !matches(v.tenant_id, SLUG) ||
    !matches(v.actor_id, SLUG) ||
    !matches(v.capability, CAPABILITY_NAME) ||
    !matches(v.action, VERB) ||
    !matches(v.task_id, SLUG) ||
    !matches(v.effect_key_step, ACTION_STEP)
  ) {
    return undefined;
  }
  const out: ActionRequestBody = {
    tenant_id: v.tenant_id,
    actor_id: v.actor_id,
    capability: v.capability,
    action: v.action,
    task_id: v.task_id,
    effect_key_step: v.effect_key_step,
  };
  if ('amount_usd' in v) {
    if (typeof v.amount_usd !== 'number' || !Number.isFinite(v.amount_usd)) return undefined;
    out.amount_usd = v.amount_usd;
  }
  if ('intent' in v) {
    if (!textUpTo(v.intent, 500)) return undefined;
    out.intent = v.intent;
  }
  if ('params' in v) {
    // An own `__proto__` member: zod's record assigns it (setting the prototype), a copy keeps
    // it. The JSON guard refuses such a body first; here it simply takes the schema's path.
    if (
      !isRecord(v.params) ||
      Object.hasOwn(v.params, '__proto__') ||
      firstMalformedString(v.params, 'params') !== undefined
    ) {
      return undefined;
    }
    out.params = { ...v.params };
  }
  if ('correlation_id' in v) {
    if (!textUpTo(v.correlation_id, 200)) return undefined;
    out.correlation_id = v.correlation_id;
  }
  if ('trace_id' in v) {
    if (!textUpTo(v.trace_id, 200)) return undefined;
    out.trace_id = v.trace_id;
  }
  return out;
}
