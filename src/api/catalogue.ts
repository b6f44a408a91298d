import { z } from 'zod';

/** A capability the caller may request access to (semantics.md, Access). */
export const CatalogueEntry = z
  .object({
    name: z.string(),
    tier: z.number().int(),
    irreversible: z.boolean().describe('irreversible actions also need an approval'),
    custody: z.enum(['grant', 'brokered', 'pass_through']),
    actions: z.array(z.string()),
    default_amount_usd: z.number().describe('the estimate a request reserves when it names no amount'),
  })
  .meta({ id: 'CatalogueEntry' });
