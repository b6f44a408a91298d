import { Flags } from '@oclif/core';

/** `--config` and `--print-config`, the same on every command a configuration file configures. */
export const configFlags = {
  config: Flags.string({
    summary:
      'YAML configuration file: a key per flag (svc config example). A flag beats its SVC_* variable, which beats the file (default: $SVC_CONFIG).',
    helpGroup: 'CONFIG',
  }),
  'print-config': Flags.boolean({
    summary: 'Print the effective configuration (each value with its source, secrets redacted) and exit.',
    helpGroup: 'CONFIG',
  }),
};
