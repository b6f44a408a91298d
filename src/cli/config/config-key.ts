import { Flags, type Interfaces } from '@oclif/core';

/** What a string key holds, which decides how it is checked, resolved and shown. */
export type StringKind =
  /** HOST:PORT of a listener */
  | 'address'
  /** a file or directory: relative in a config file means relative to the file */
  | 'path'
  /** 90d, 12h, 30m, 45s */
  | 'duration'
  /** a URL, which may carry a password in its userinfo */
  | 'url'
  /** `sqlite` or a PostgreSQL URL, which may carry a password */
  | 'store'
  /** `URL=ID=KEY`: a URL, then a key that is key text or a file */
  | 'url-id-key'
  /** `ID=FILE` */
  | 'id-path'
  /** `NAME=KEY`: a key that is key text or a file */
  | 'name-key'
  /** the value itself is a secret: never shown */
  | 'secret'
  | 'text';

/**
 * The kind of every string flag of a configurable command. A string flag missing here is
 * read as plain text (neither resolved against the file nor redacted), so a test walks the
 * commands and fails for any flag not listed: adding a flag means deciding its kind.
 */
export const STRING_KINDS: Readonly<Record<string, StringKind>> = {
  listen: 'address',
  'metrics-listen': 'address',
  'data-dir': 'path',
  'tls-cert': 'path',
  'tls-key': 'path',
  'client-ca': 'path',
  'integration-ops': 'path',
  'metrics-token-file': 'path',
  'key-file': 'path',
  'kek-file': 'path',
  'previous-kek-file': 'path',
  'pkcs11-module': 'path',
  'pkcs11-token-label': 'text',
  'pkcs11-pin-file': 'path',
  state: 'path',
  'anchor-interval': 'duration',
  'header-timeout': 'duration',
  'request-timeout': 'duration',
  'idle-timeout': 'duration',
  'stop-deadline': 'duration',
  'tsa-url': 'url',
  'notify-timeout': 'duration',
  'notify-allow-private': 'text',
  store: 'store',
  witness: 'url-id-key',
  'witness-ca': 'id-path',
  'log-key': 'name-key',
  id: 'text',
  'replica-id': 'text',
};

/** Flags that steer the command rather than configure it: no key in the file. */
export const META_FLAGS: ReadonlySet<string> = new Set(['config', 'print-config', 'json', 'help', 'version']);

/** Variables that predate the configuration file and keep their names. */
const ENV_NAMES: Readonly<Record<string, string>> = { 'data-dir': 'SVC_HOME' };

/** Names that say the value itself is a credential (not a file holding one). */
const SECRET_NAME = /(^|-)(token|secret|password|passphrase|credential|private-key)$/;

export type AnyFlag = Interfaces.Flag<unknown>;
export type FlagSet = Record<string, AnyFlag>;

/** A command whose flags a configuration file may set. */
export interface Configurable {
  readonly flags?: Interfaces.FlagInput;
  readonly baseFlags?: Interfaces.FlagInput;
}

export interface ConfigKey {
  /** as the flag is named: `metrics-listen` */
  name: string;
  /** the variable that sets it: `SVC_METRICS_LISTEN` */
  env: string;
  type: 'string' | 'boolean' | 'integer';
  /** a repeatable flag: a list in the file, comma-separated in the environment */
  list: boolean;
  kind: StringKind;
  min?: number;
  max?: number;
  summary: string;
  /** the flag's definition: its own parser checks every value, whatever its source */
  flag: AnyFlag;
}

// Flags.integer's parser is one shared function: how an integer flag is told apart.
const INTEGER_PARSE = (Flags.integer() as unknown as { parse: unknown }).parse;

export function envName(key: string): string {
  return ENV_NAMES[key] ?? `SVC_${key.toUpperCase().replaceAll('-', '_')}`;
}

export function allFlags(cmd: Configurable): FlagSet {
  return { ...cmd.baseFlags, ...cmd.flags } as FlagSet;
}

/** One key per flag of the command, meta flags aside, in the order the command declares them. */
export function configKeys(cmd: Configurable): ConfigKey[] {
  const flags = allFlags(cmd);
  // The command's own flags first, then the global ones (data dir, store), as its help lists them.
  const names = [...Object.keys(cmd.flags ?? {}), ...Object.keys(cmd.baseFlags ?? {})];
  return [...new Set(names)]
    .filter((name) => !META_FLAGS.has(name))
    .map((name) => {
      const flag = flags[name]!;
      const integer = flag.type === 'option' && (flag as { parse?: unknown }).parse === INTEGER_PARSE;
      const o = flag as { min?: number; max?: number; multiple?: boolean };
      const kind = SECRET_NAME.test(name) ? 'secret' : (STRING_KINDS[name] ?? 'text');
      return {
        name,
        env: envName(name),
        type: flag.type === 'boolean' ? 'boolean' : integer ? 'integer' : 'string',
        list: o.multiple === true,
        kind: flag.type === 'boolean' || integer ? 'text' : kind,
        ...(o.min !== undefined ? { min: o.min } : {}),
        ...(o.max !== undefined ? { max: o.max } : {}),
        summary: flag.summary ?? flag.description ?? '',
        flag,
      } satisfies ConfigKey;
    });
}
