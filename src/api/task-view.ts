import type { z } from 'zod';
import { formatUsd, remaining } from '../core/money.js';
import type { TaskSummary } from '../store/query-ports.js';
import type { TaskView } from './task.js';

/** A task as the daemon's `/v1/task` and the console's spend page answer it. */
export function taskView(t: TaskSummary): z.output<typeof TaskView> {
  return {
    task_id: t.id,
    title: t.title,
    status: t.status,
    sponsor_id: t.sponsorId,
    parent_id: t.parentId,
    root_id: t.rootId,
    budget_usd: formatUsd(t.budgetMicros),
    reserved_usd: formatUsd(t.reservedMicros),
    remaining_usd: formatUsd(remaining({ limit: t.budgetMicros, reserved: t.reservedMicros })),
    actors: t.actors,
    constraints_installed: t.constraintsInstalled,
    created_at: t.createdAt,
    closed_at: t.closedAt,
  };
}
