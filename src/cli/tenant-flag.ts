import { Flags } from '@oclif/core';
import { checkSlug } from '../core/ids.js';

/**
 * The one `--tenant` of every command that works on a tenant: a tenant id is a slug, checked
 * as the flag is parsed, so a malformed one is refused naming `tenant` before any store opens.
 * Call it with `{ required: true }`, or with a summary for a command that uses it differently.
 */
export const tenantFlag = Flags.custom<string>({
  summary: 'Tenant id.',
  parse: async (input) => checkSlug('tenant', input),
});
