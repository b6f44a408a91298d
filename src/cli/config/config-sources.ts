import { Parser } from '@oclif/core';
import { SvcError } from '../../core/errors.js';
import { asSvcError } from '../exit-codes.js';
import { readConfigEnv } from './config-env.js';
import { readConfigFile } from './config-file.js';
import { allFlags, configKeys, type AnyFlag, type Configurable, type ConfigKey } from './config-key.js';
import type { ConfigValue } from './config-value.js';

/** What to run to see the keys a command takes. */
export const REMEDY =
  'svc config example (--for daemon, console or witness) prints every key with its type and default';

/** Where a setting's value came from: what `--print-config` writes after it. */
export type Origin =
  | { source: 'flag' }
  | { source: 'env'; variable: string }
  | { source: 'file'; line: number }
  | { source: 'default' };

export interface Setting {
  key: ConfigKey;
  /** as written (a path from the file already resolved); undefined: not set, no default */
  value: ConfigValue | undefined;
  origin: Origin;
}

export interface Settings<F> {
  /** the command's flags, parsed by oclif from the flags given and the file and environment values */
  flags: F;
  /** every key, in the command's order */
  settings: Setting[];
  /** by key name */
  origins: Record<string, Origin>;
  /** the configuration file read, if any */
  file?: { name: string; path: string; from: 'flag' | 'env' };
}

/** A command's parser: `(argv) => this.parse(Command, argv)` in a command, oclif's Parser outside one. */
export type ParseFlags<F> = (argv: string[]) => Promise<{ flags: F }>;

export interface SettingsOptions {
  cwd?: string;
}

/**
 * The command's effective settings: a flag given on the command line, else its `SVC_*`
 * variable, else the configuration file (`--config`, else `$SVC_CONFIG`), else the flag's
 * default. Values from the environment and the file are checked against the key's type and
 * the flag's own parser first, each refusal naming its source and key; then everything is
 * handed to oclif as flags, so the flags' relations (`--tls-cert` needs `--tls-key`, ...) hold
 * whatever the source. Reads the file and the environment afresh on every call.
 */
export async function effectiveSettings<F>(
  cmd: Configurable,
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  parse: ParseFlags<F>,
  options: SettingsOptions = {},
): Promise<Settings<F>> {
  const cwd = options.cwd ?? process.cwd();
  const keys = configKeys(cmd);
  const given = await givenFlags(cmd, argv);
  const configFlag = given.get('config');
  const configName =
    typeof configFlag === 'string' ? configFlag : env.SVC_CONFIG !== '' ? env.SVC_CONFIG : undefined;
  const file = configName === undefined ? undefined : await readConfigFile(configName, cwd, keys);
  const fromEnv = await readConfigEnv(keys, env);
  const problems = [...(file?.problems ?? []), ...fromEnv.problems];
  if (problems.length > 0) {
    throw new SvcError('usage', problems.join('\n'), {
      field: problems.length === 1 ? fieldOf(problems[0]!) : 'config',
      remedy: REMEDY,
    });
  }

  const settings: Setting[] = [];
  for (const key of keys) {
    const flag = given.get(key.name);
    const e = fromEnv.settings.get(key.name);
    const f = file?.settings.get(key.name);
    if (flag !== undefined) settings.push({ key, value: flagValue(key, flag), origin: { source: 'flag' } });
    else if (e !== undefined)
      settings.push({ key, value: e.value, origin: { source: 'env', variable: e.variable } });
    else if (f !== undefined)
      settings.push({ key, value: f.value, origin: { source: 'file', line: f.line } });
    else settings.push({ key, value: await defaultValue(key), origin: { source: 'default' } });
  }

  const flags = await parseAll(parse, argv, settings);
  return {
    flags,
    settings,
    origins: Object.fromEntries(settings.map((s) => [s.key.name, s.origin])),
    ...(file !== undefined && configName !== undefined
      ? { file: { name: configName, path: file.path, from: typeof configFlag === 'string' ? 'flag' : 'env' } }
      : {}),
  };
}

/** `config svc.yaml: listen: ...` or `env SVC_LISTEN: ...`: the key, for the error's field. */
function fieldOf(problem: string): string {
  const m = /^(?:config [^:]*|env (SVC_\w+)): ([\w-]+)/.exec(problem);
  return m?.[1] ?? m?.[2] ?? 'config';
}

/**
 * What was given on the command line, by oclif's own tokenizer, before anything is required
 * or related: raw text for option flags, true or false for switches (`--no-` says false).
 */
async function givenFlags(cmd: Configurable, argv: readonly string[]): Promise<Map<string, ConfigValue>> {
  const relaxed = Object.fromEntries(Object.entries(allFlags(cmd)).map(([name, f]) => [name, relax(f)]));
  const out = await Parser.parse([...argv], {
    flags: relaxed,
    args: (cmd as { args?: Record<string, never> }).args ?? {},
    strict: (cmd as { strict?: boolean }).strict !== false,
  });
  const given = new Map<string, ConfigValue>();
  const values = out.flags as Record<string, ConfigValue | undefined>;
  for (const token of out.raw) {
    if (token.type !== 'flag') continue;
    const value = values[token.flag];
    if (value !== undefined) given.set(token.flag, value);
  }
  return given;
}

function relax(flag: AnyFlag): AnyFlag {
  const copy = { ...flag } as Record<string, unknown>;
  for (const rule of [
    'required',
    'dependsOn',
    'exclusive',
    'relationships',
    'exactlyOne',
    'atLeastOne',
    'combinable',
    'default',
    'defaultHelp',
    'env',
  ]) {
    delete copy[rule];
  }
  copy.parse = async (input: unknown) => input;
  return copy as unknown as AnyFlag;
}

function flagValue(key: ConfigKey, given: ConfigValue): ConfigValue {
  return key.type === 'integer' && typeof given === 'string' ? Number(given) : given;
}

/** The default as the flag's help shows it (`5m`, not 300000 ms); booleans are off. */
async function defaultValue(key: ConfigKey): Promise<ConfigValue | undefined> {
  const f = key.flag as { default?: unknown; defaultHelp?: unknown };
  if (key.type === 'boolean') return f.default === true;
  if (typeof f.defaultHelp === 'string') return f.defaultHelp;
  if (typeof f.defaultHelp === 'function') {
    try {
      const shown = (await (f.defaultHelp as (ctx: unknown) => Promise<unknown>)({
        flags: {},
        options: key.flag,
      })) as unknown;
      if (typeof shown === 'string') return shown;
    } catch {
      // a help function that needs more context: show the value itself
    }
  }
  const d = f.default;
  if (typeof d === 'string' || typeof d === 'number' || typeof d === 'boolean') return d;
  if (Array.isArray(d)) return d.map(String);
  return undefined;
}

/**
 * oclif parses the command line as given plus one flag per value from the environment or
 * the file, so every flag rule applies to all of them. A refusal that involves a value
 * not given as a flag says where that value came from.
 */
async function parseAll<F>(parse: ParseFlags<F>, argv: readonly string[], settings: Setting[]): Promise<F> {
  const end = argv.indexOf('--');
  const before = end < 0 ? [...argv] : argv.slice(0, end);
  const after = end < 0 ? [] : argv.slice(end);
  // `--no-X` was for the precedence only: false is what an absent switch is.
  const negations = new Set(
    settings.filter((s) => s.key.type === 'boolean').map((s) => `--no-${s.key.name}`),
  );
  const extra: string[] = [];
  for (const { key, value, origin } of settings) {
    if (origin.source !== 'env' && origin.source !== 'file') continue;
    if (value === true) extra.push(`--${key.name}`);
    else if (Array.isArray(value)) extra.push(...value.map((v) => `--${key.name}=${v}`));
    else if (value !== false && value !== undefined) extra.push(`--${key.name}=${String(value)}`);
  }
  try {
    return (await parse([...before.filter((a) => !negations.has(a)), ...extra, ...after])).flags;
  } catch (err) {
    const coded = asSvcError(err);
    const sourced = settings.filter((s) => s.origin.source === 'env' || s.origin.source === 'file');
    if (coded.kind !== 'usage' || sourced.length === 0) throw err;
    const named = sourced.filter((s) => coded.reason.includes(`--${s.key.name}`));
    const where = (named.length > 0 ? named : sourced)
      .map(
        (s) =>
          `--${s.key.name} from ${s.origin.source === 'file' ? 'the config file' : originText(s.origin)}`,
      )
      .join(', ');
    throw new SvcError('usage', `${coded.reason}\n(not given as flags: ${where})`, {
      ...(coded.field !== undefined ? { field: coded.field } : {}),
    });
  }
}

export function originText(origin: Origin): string {
  switch (origin.source) {
    case 'env':
      return `env ${origin.variable}`;
    case 'file':
      return 'file';
    default:
      return origin.source;
  }
}

/** oclif's parser over the command's flags, as `this.parse` runs it: for callers outside a command. */
export function oclifParse(cmd: Configurable): ParseFlags<Record<string, unknown>> {
  return async (argv) => {
    const out = await Parser.parse(argv, {
      flags: allFlags(cmd),
      args: (cmd as { args?: Record<string, never> }).args ?? {},
      strict: (cmd as { strict?: boolean }).strict !== false,
    });
    return { flags: out.flags as Record<string, unknown> };
  };
}

/** Every key at its default: what `svc config example` writes. */
export async function defaultSettings(cmd: Configurable): Promise<Setting[]> {
  return Promise.all(
    configKeys(cmd).map(async (key) => ({
      key,
      value: await defaultValue(key),
      origin: { source: 'default' as const },
    })),
  );
}

/** `svc config check`: the file alone against the command's keys (flags and environment may add to it). */
export async function checkConfig(
  cmd: Configurable,
  name: string,
  cwd: string,
): Promise<{ path: string; keys: number; problems: string[] }> {
  const file = await readConfigFile(name, cwd, configKeys(cmd));
  return { path: file.path, keys: file.settings.size, problems: file.problems };
}
