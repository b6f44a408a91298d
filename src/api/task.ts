import { z } from 'zod';

export const TaskView = z
  .object({
    task_id: z.string(),
    title: z.string().nullable(),
    status: z.enum(['draft', 'active', 'closed']),
    sponsor_id: z.string(),
    parent_id: z.string().nullable(),
    root_id: z.string(),
    budget_usd: z.number(),
    reserved_usd: z.number(),
    remaining_usd: z.number(),
    actors: z.array(z.string()),
    constraints_installed: z.boolean(),
    created_at: z.string(),
    closed_at: z.string().nullable(),
  })
  .meta({ id: 'Task' });
