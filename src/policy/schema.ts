/**
 * The project's Cedar schema: what a tenant's policy may speak about.
 *
 * Decisions (spec/semantics.md, "Policy"):
 * - No namespace. Policies are written by operators, and `Actor`, `Capability` and
 *   `Action::"read"` read better than `Svc::Actor`; nothing else shares the schema.
 * - Principal `Actor`: `kind` ("agent" | "human" | "service"), `roles` (Set<String>, empty
 *   for non-humans), `manager` (optional String: only agents name one, so policies must
 *   test `principal has manager` first, which strict validation enforces).
 * - Resource `Capability`: `tier` (Long), `irreversible` (Bool), `custody` (String).
 * - Actions are the request verbs. Capabilities declare their verbs at registration, so
 *   the schema is built from the set of verbs registered in the tenant; a policy naming
 *   a verb nobody registered fails validation rather than silently never matching.
 *   Every action applies to every Actor/Capability pair with the same context.
 * - No Task entity: a task is named by `context.task_id`. Task state (active, budget,
 *   constraints) is decided by the pipeline's own steps, not by policy.
 * - Context: `task_id` String, `tier` Long (the capability's, repeated so a rule on the
 *   request needs no entity lookup), `amount_micros` Long (the amount in micro-dollars,
 *   exact: compare with `1000000000` for 1000 USD), `route` String ("action" | "brokered"),
 *   `now_epoch_s` Long (decision time, unix seconds, from the daemon's clock),
 *   `irreversible` Bool (the capability's).
 * Cedar has no string enums, so the closed string sets above are kept by the adapter,
 * which builds every request from typed values.
 */
import type { SchemaJson } from './cedar-engine.js';
import { createHash } from 'node:crypto';
import { invalidField } from '../core/errors.js';

export const ACTOR_TYPE = 'Actor';
export const CAPABILITY_TYPE = 'Capability';
export const ACTION_TYPE = 'Action';
const CONTEXT_TYPE = 'RequestContext';
// The engine would turn a lone surrogate into U+FFFD, so the verb would never match itself.
const LONE_SURROGATE = /\p{Cs}/u;

/** Sorted and de-duplicated, so one verb set is one schema whatever order it came in. */
export function normalizeActions(actions: readonly string[]): string[] {
  for (const action of actions) {
    if (
      typeof action !== 'string' ||
      action.length === 0 ||
      action.length > 64 ||
      LONE_SURROGATE.test(action)
    ) {
      throw invalidField('actions', 'verbs of 1 to 64 characters of well-formed text');
    }
  }
  return [...new Set(actions)].sort();
}

/** The Cedar JSON schema for a tenant whose capabilities register `actions`. */
export function cedarSchema(actions: readonly string[]): SchemaJson<string> {
  const appliesTo = {
    principalTypes: [ACTOR_TYPE],
    resourceTypes: [CAPABILITY_TYPE],
    context: { type: CONTEXT_TYPE },
  };
  return {
    '': {
      commonTypes: {
        [CONTEXT_TYPE]: {
          type: 'Record',
          attributes: {
            task_id: { type: 'String' },
            tier: { type: 'Long' },
            amount_micros: { type: 'Long' },
            route: { type: 'String' },
            now_epoch_s: { type: 'Long' },
            irreversible: { type: 'Boolean' },
          },
        },
      },
      entityTypes: {
        [ACTOR_TYPE]: {
          shape: {
            type: 'Record',
            attributes: {
              kind: { type: 'String' },
              roles: { type: 'Set', element: { type: 'String' } },
              manager: { type: 'String', required: false },
            },
          },
        },
        [CAPABILITY_TYPE]: {
          shape: {
            type: 'Record',
            attributes: {
              tier: { type: 'Long' },
              irreversible: { type: 'Boolean' },
              custody: { type: 'String' },
            },
          },
        },
      },
      actions: Object.fromEntries(normalizeActions(actions).map((verb) => [verb, { appliesTo }])),
    },
  };
}

/**
 * A name for the engine's schema cache. Derived from the verb set alone, so a name always
 * means the same schema and two tenants with the same verbs share one parsed copy.
 */
export function schemaName(actions: readonly string[]): string {
  return `svc-schema:${digest(JSON.stringify(normalizeActions(actions)))}`;
}

export function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}
