/**
 * Finding codes of the timestamp (§6.1) and witness (§6.2) checks and of receipt proofs, kept apart from the
 * format's own so each family reads on its own; findings.ts merges them into one table.
 */
export const ATTESTATION_FINDING_CODES = {
  timestamp_token_malformed:
    'a timestamp token is not an RFC 3161 TimeStampResp holding SignedData over a TSTInfo',
  timestamp_not_granted: "a timestamp token's PKIStatus is not granted (0) or grantedWithMods (1)",
  timestamp_imprint_mismatch:
    "a timestamp token's message imprint is not SHA-256 of its anchor's head payload",
  timestamp_time_mismatch: "a timestamp's time differs from its token's genTime (to the second)",
  timestamp_weak_hash: 'a timestamp token is signed with a digest weaker than SHA-256',
  timestamp_signature_invalid: "a timestamp token's CMS signature does not verify",
  timestamp_eku_missing: "a timestamp signer certificate's extended key usage does not allow timeStamping",
  timestamp_untrusted: 'a timestamp signer does not chain to a supplied --tsa-cert root',
  witness_signature_invalid: 'a cosignature does not verify under the key pinned for its witness id',
  witnesses_required: 'fewer independent witnesses cosigned the last anchor than required',
  // A receipt and its proof (svc verify receipt): what only a single receipt can get wrong.
  proof_missing: 'the receipt carries no proof (no anchor covered its entry when it was read)',
  proof_malformed: 'the proof is not {entry, leaf_index, tree_size, audit_path, anchor} of the right types',
  receipt_entry_mismatch: "a receipt field differs from its entry line's",
  inclusion_invalid: 'the audit path does not lead from the leaf to the head root',
} as const;
