import { stringify } from 'yaml';
import type { ConfigKey } from './config-key.js';
import { REDACTED, redactText } from './config-redaction.js';
import { originText, type Origin, type Setting, type Settings } from './config-sources.js';
import type { ConfigValue } from './config-value.js';

/** One YAML scalar, quoted only where YAML needs it, never folded. */
function scalar(v: string | number | boolean): string {
  return stringify(v, { lineWidth: 0 }).trimEnd();
}

/** The value as it may be shown: a secret key's value never, a password in a URL never. */
export function shown(key: ConfigKey, value: ConfigValue): ConfigValue {
  if (key.kind === 'secret') return Array.isArray(value) ? value.map(() => REDACTED) : REDACTED;
  if (Array.isArray(value)) return value.map(redactText);
  return typeof value === 'string' ? redactText(value) : value;
}

function entry(name: string, value: ConfigValue, comment: string): string[] {
  if (!Array.isArray(value)) return [`${name}: ${scalar(value)} # ${comment}`];
  if (value.length === 0) return [`${name}: [] # ${comment}`];
  return [`${name}: # ${comment}`, ...value.map((v) => `  - ${scalar(v)}`)];
}

/**
 * `--print-config`: the effective configuration as YAML, each key with where its value came
 * from, secrets redacted. Keys neither set nor defaulted are listed, commented out.
 */
export function renderEffective(command: string, s: Settings<unknown>): string {
  const out = [`# svc ${command}: the effective configuration`];
  if (s.file !== undefined) {
    out.push(`# config file: ${s.file.path}${s.file.from === 'env' ? ' (from env SVC_CONFIG)' : ''}`);
  }
  out.push('# each value: flag > env SVC_* > file > default');
  for (const setting of s.settings) out.push(...renderSetting(setting));
  return out.join('\n');
}

function renderSetting({ key, value, origin }: Setting): string[] {
  if (value === undefined) return [`# ${key.name}: (not set)`];
  return entry(key.name, shown(key, value), originText(origin));
}

/**
 * `svc config example`: every key, commented out, with its summary, its variable and its
 * default, so the file as printed sets nothing and each line can be uncommented.
 */
export function renderExample(command: string, settings: readonly Setting[]): string {
  const out = [
    `# A configuration file for svc ${command}: svc ${command} --config FILE (or SVC_CONFIG=FILE).`,
    '# Precedence: a flag, else its SVC_* variable, else this file, else the default.',
    "# Relative paths resolve against this file's directory. Unknown keys and wrong types are refused.",
    '# Check it with: svc config check FILE',
  ];
  for (const { key, value } of settings) {
    out.push('', ...wrap(`${key.summary}`), `# ${typeWords(key)}; env ${key.env}`);
    if (value === undefined) out.push(`# ${key.name}:`);
    else out.push(...entry(key.name, value, 'default').map((l) => `# ${l.replace(/ # default$/, '')}`));
  }
  return out.join('\n');
}

const KIND_WORDS: Record<ConfigKey['kind'], string> = {
  address: 'HOST:PORT',
  path: 'path',
  duration: 'duration (90d, 12h, 30m, 45s)',
  url: 'URL',
  store: 'sqlite or a postgres:// URL',
  'url-id-key': 'URL=ID=KEY',
  'id-path': 'ID=FILE',
  'name-key': 'NAME=KEY',
  secret: 'string (secret)',
  text: 'string',
};

function typeWords(key: ConfigKey): string {
  const base =
    key.type === 'boolean'
      ? 'boolean'
      : key.type === 'integer'
        ? `integer${key.min !== undefined ? `, at least ${key.min}` : ''}${key.max !== undefined ? `, at most ${key.max}` : ''}`
        : KIND_WORDS[key.kind];
  return key.list ? `list of ${base}` : base;
}

/** The summary as comment lines of at most about 100 columns. */
function wrap(text: string): string[] {
  const lines: string[] = [];
  let line = '#';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line.length + word.length + 1 > 100 && line !== '#') {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  if (line !== '#') lines.push(line);
  return lines;
}

/** For a warning about a setting: where it came from when not from a flag (`, from env SVC_X`). */
export function sourceNote(origin: Origin | undefined): string {
  if (origin === undefined || origin.source === 'flag') return '';
  return origin.source === 'file' ? ', from the config file' : `, from ${originText(origin)}`;
}
