import { Flags } from '@oclif/core';
import type { TrustOptions } from '../evidence/verify/trust.js';
import { parseWitnessKeys, readTsaRoots } from './attestation-trust.js';

/** The §6.1/§6.2 trust flags `svc verify` and `svc verify receipt` share. */
export const attestationFlags = {
  'tsa-cert': Flags.string({
    summary: 'A PEM file of trusted timestamp-authority roots: tokens verify only under these. Repeatable.',
    multiple: true,
  }),
  'witness-key': Flags.string({
    summary:
      'ID=KEY: pin a witness key (base64, hex or a PEM file) for cosignatures with this witness_id. Repeatable.',
    multiple: true,
  }),
  'require-witnesses': Flags.integer({
    summary: 'Fail unless at least N independent pinned witnesses cosigned the last anchor.',
    min: 0,
  }),
};

export function attestationOptions(flags: {
  'tsa-cert'?: string[] | undefined;
  'witness-key'?: string[] | undefined;
  'require-witnesses'?: number | undefined;
}): Pick<TrustOptions, 'tsaRoots' | 'witnessKeys' | 'requireWitnesses'> {
  return {
    tsaRoots: readTsaRoots(flags['tsa-cert'] ?? []),
    witnessKeys: parseWitnessKeys(flags['witness-key'] ?? []),
    ...(flags['require-witnesses'] !== undefined ? { requireWitnesses: flags['require-witnesses'] } : {}),
  };
}
