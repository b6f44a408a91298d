import { Flags } from '@oclif/core';
import type { Pkcs11Choice } from '../store/data-dir.js';

const MODULE =
  'PKCS#11 library of the token that holds the signing keys (SoftHSM: /usr/lib/softhsm/libsofthsm2.so); new keys are generated there and never leave it.';
const TOKEN = 'Label of that PKCS#11 token.';
const PIN_FILE = "File (mode 0600) holding the token's user PIN.";

/** For commands that make or use signing keys; `$SVC_PKCS11_MODULE`, `_TOKEN_LABEL` and `_PIN_FILE` stand in. */
export const pkcs11Flags = {
  'pkcs11-module': Flags.string({ summary: MODULE, env: 'SVC_PKCS11_MODULE' }),
  'pkcs11-token-label': Flags.string({ summary: TOKEN, env: 'SVC_PKCS11_TOKEN_LABEL' }),
  'pkcs11-pin-file': Flags.string({ summary: PIN_FILE, env: 'SVC_PKCS11_PIN_FILE' }),
};

/** The same for the listeners, whose settings (and their `SVC_` variables) come through `--config`. */
export const pkcs11ConfigFlags = {
  'pkcs11-module': Flags.string({ summary: MODULE }),
  'pkcs11-token-label': Flags.string({ summary: TOKEN }),
  'pkcs11-pin-file': Flags.string({ summary: PIN_FILE }),
};

/** The parsed values of those flags. */
export interface Pkcs11FlagValues {
  'pkcs11-module'?: string | undefined;
  'pkcs11-token-label'?: string | undefined;
  'pkcs11-pin-file'?: string | undefined;
}

/** The token choice the flags make (store/data-dir.ts checks that all three or none are given). */
export function pkcs11Choice(flags: Pkcs11FlagValues): Pkcs11Choice {
  return {
    module: flags['pkcs11-module'],
    label: flags['pkcs11-token-label'],
    pinFile: flags['pkcs11-pin-file'],
  };
}
