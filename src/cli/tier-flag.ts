import { Flags } from '@oclif/core';
import { checkTier, MAX_TIER } from '../core/capability.js';

/** `--tier`: a whole number from 0 to 9, refused as the flag is read with the registry's own message. */
export const tierFlag = Flags.custom<number>({
  summary: `Risk tier from 0 to ${MAX_TIER}; at or above the approval tier an approval is needed.`,
  parse: async (input) => checkTier('tier', /^\s*-?[0-9]+\s*$/.test(input) ? Number(input) : Number.NaN),
});
