import { Flags } from '@oclif/core';

const KEK_FILE =
  'Key-encryption key file (mode 0600, from `svc store kek create`): on PostgreSQL, signing keys and the secret key are sealed under it in the database; never stored there.';
const PREVIOUS_KEK_FILE =
  'During a KEK rotation: the KEK being replaced, to open rows not yet re-sealed under --kek-file.';

/** For commands that sign or open secrets; `$SVC_KEK_FILE` and `$SVC_PREVIOUS_KEK_FILE` stand in. */
export const kekFlags = {
  'kek-file': Flags.string({ summary: KEK_FILE, env: 'SVC_KEK_FILE' }),
  'previous-kek-file': Flags.string({
    summary: PREVIOUS_KEK_FILE,
    env: 'SVC_PREVIOUS_KEK_FILE',
    dependsOn: ['kek-file'],
  }),
};

/** The same for the listeners, whose settings (and their `SVC_` variables) come through `--config`. */
export const kekConfigFlags = {
  'kek-file': Flags.string({ summary: KEK_FILE }),
  'previous-kek-file': Flags.string({ summary: PREVIOUS_KEK_FILE, dependsOn: ['kek-file'] }),
};

/** For the commands that exist to seal (`svc store kek rotate`, `import`): the KEK is required. */
export const requiredKekFlags = {
  ...kekFlags,
  'kek-file': Flags.string({ summary: KEK_FILE, env: 'SVC_KEK_FILE', required: true }),
};
