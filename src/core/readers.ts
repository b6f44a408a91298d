import { hasRole, type Actor } from './actor.js';

/**
 * Who reads tasks, receipts and admissions within a tenant. Tenant isolation is the store
 * query's job (every query is keyed by the caller's tenant); these rules narrow inside it.
 */

/** Those who run or audit the deployment read every task and every receipt of the tenant. */
export function readsWholeTenant(actor: Actor): boolean {
  return hasRole(actor, 'operator') || hasRole(actor, 'administrator') || hasRole(actor, 'auditor');
}

/** A task's readers: its sponsor, the agents assigned to it, and the tenant-wide readers. */
export function readsTask(actor: Actor, task: { sponsorId: string; actors: readonly string[] }): boolean {
  return readsWholeTenant(actor) || task.sponsorId === actor.id || task.actors.includes(actor.id);
}

/**
 * The full admissions ledger of a tree goes to operators and to the sponsor who installed
 * its plan; other readers learn only their own reservation ids.
 */
export function readsFullLedger(actor: Actor, rootSponsorId: string): boolean {
  return hasRole(actor, 'operator') || actor.id === rootSponsorId;
}
