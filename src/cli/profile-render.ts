import type { z } from 'zod';
import type { ExecutionProfile } from '../api/constraints.js';
import { renderRecord } from './render.js';
import { renderTable } from './table.js';

export type Profile = z.output<typeof ExecutionProfile>;

/** The plan, then the ledger as far as the caller may see it. */
export function renderProfile(p: Profile): string {
  const head = p.installed
    ? `Execution constraints of root ${p.root_id}, installed ${p.installed_at} by ${p.installed_by}:`
    : `Root ${p.root_id} has no execution constraints installed.`;
  const plan = p.plan ? `\n${renderRecord(p.plan)}` : '';
  const l = p.ledger;
  const ledger =
    l.visibility === 'full'
      ? `Admissions: ${l.admitted_actions}, ${l.admitted_total_usd} USD in total\n` +
        renderTable(
          ['reservation', 'task', 'actor', 'capability', 'amount (USD)', 'intent', 'at'],
          l.admissions.map((a) => [
            a.reservation_id,
            a.task_id,
            a.actor_id,
            a.capability,
            a.amount_usd,
            a.intent_id,
            a.created_at,
          ]),
        )
      : `Your reservations: ${l.reservation_ids.length === 0 ? 'none' : l.reservation_ids.join(', ')}`;
  return `${head}${plan}\n${ledger}`;
}
