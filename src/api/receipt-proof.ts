import { z } from 'zod';
import { ReceiptView } from './receipt.js';

/** The export-format objects a proof carries (interface-spec.md, evidence-format.md §3, §6). */
const Hex32 = z.string().regex(/^[0-9a-f]{64}$/);

const TreeHeadView = z
  .object({
    log_id: z.string(),
    index: z.number().int(),
    root_hash: Hex32,
    tree_size: z.number().int(),
    signed_at: z.string(),
    signature: z.string(),
  })
  .meta({ id: 'TreeHead' });

const TombstoneView = z.object({
  from_sequence: z.number().int(),
  to_sequence: z.number().int(),
  reason: z.string(),
  authorised_by: z.string(),
  policy_id: z.string().optional(),
  record_count: z.number().int().optional(),
  receipt_count: z.number().int().optional(),
  removed_at: z.string(),
});

const EntryLineView = z
  .object({
    type: z.literal('entry'),
    tenant_id: z.string(),
    sequence: z.number().int(),
    record_hash: Hex32,
    intent_id: z.string(),
    actor_id: z.string(),
    capability: z.string(),
    tier: z.number().int(),
    allowed: z.boolean(),
    grant_id: z.string(),
    amount_usd: z.number(),
    occurred_at: z.string(),
    linked_at: z.string(),
    tombstone: TombstoneView.optional(),
    chain_hash: Hex32,
    leaf: Hex32,
  })
  .meta({ id: 'EntryLine', description: 'the entry exactly as an export writes it' });

const AnchorLineView = z
  .object({
    type: z.literal('anchor'),
    head: TreeHeadView,
    key_id: z.string().optional(),
    algorithm: z.string().optional(),
    timestamp: z
      .object({
        authority: z.string(),
        digest: z.string(),
        time: z.string(),
        token: z.string().optional(),
        noop: z.boolean().optional(),
        verified: z.string().optional(),
      })
      .optional(),
    witnesses: z
      .array(
        z.object({
          witness_id: z.string(),
          public_key: z.string().optional(),
          signature: z.string(),
          signed_at: z.string(),
          key_holder: z.string().optional(),
        }),
      )
      .optional(),
  })
  .meta({ id: 'AnchorLine', description: 'the signed head exactly as an export writes its anchor line' });

export const ReceiptProof = z
  .object({
    entry: EntryLineView,
    leaf_index: z.number().int().describe('sequence - 1'),
    tree_size: z.number().int(),
    audit_path: z.array(Hex32).describe('RFC 6962 inclusion proof, leaf side first'),
    anchor: AnchorLineView.describe('the latest signed head, with its timestamp and witness cosignatures'),
  })
  .meta({ id: 'ReceiptProof' });

export const ReceiptWithProof = ReceiptView.extend({
  proof: ReceiptProof.nullable()
    .optional()
    .describe(
      'only with proof=true; null until an anchor covers the entry (the next one is signed within --anchor-interval)',
    ),
}).meta({ id: 'ReceiptWithProof' });
