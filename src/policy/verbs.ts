import type { Capability } from '../core/capability.js';

/**
 * Verbs every tenant's schema carries whether or not a capability registers them, so a
 * first policy that speaks of reading and writing validates before the first capability
 * is registered, and stays valid when a capability drops one of them.
 */
export const BASE_VERBS: readonly string[] = ['read', 'write'];

/**
 * The actions of a tenant's Cedar schema: the base verbs and every verb its capabilities
 * register, sorted. The one definition: `svc policy set` validates against it, and the
 * daemon compiles the stored policy against it.
 */
export function verbsOf(capabilities: readonly Pick<Capability, 'actions'>[]): string[] {
  return [...new Set([...BASE_VERBS, ...capabilities.flatMap((c) => c.actions)])].sort();
}
