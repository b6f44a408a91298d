import { isAbsolute, resolve } from 'node:path';
import { parseDuration } from '../../core/duration.js';
import { parseListenAddress } from '../../http/listen-address.js';
import type { ConfigKey } from './config-key.js';
import { redactText } from './config-redaction.js';

/** A setting as the operator writes it: text, a whole number, a switch, or a list of text. */
export type ConfigValue = string | number | boolean | string[];

/** A value, or what was wrong with it (the words after `KEY: `). */
export type Checked = { ok: true; value: ConfigValue } | { ok: false; problem: string };

const ITEM: Record<ConfigKey['kind'], string> = {
  address: 'a string HOST:PORT',
  path: 'a file path (a string)',
  duration: 'a duration such as 90d, 12h, 30m or 45s',
  url: 'a URL (a string)',
  store: 'sqlite or a postgres:// URL (a string)',
  'url-id-key': 'a string URL=ID=KEY',
  'id-path': 'a string ID=FILE',
  'name-key': 'a string NAME=KEY',
  secret: 'a string',
  text: 'a string',
};

/** What the key takes, in the words of an error message. */
export function expected(key: ConfigKey): string {
  if (key.type === 'boolean') return 'true or false';
  if (key.type === 'integer') return integerWords(key);
  return key.list ? `a list, each item ${ITEM[key.kind]}` : ITEM[key.kind];
}

function integerWords(key: ConfigKey): string {
  if (key.min !== undefined && key.max !== undefined) return `an integer from ${key.min} to ${key.max}`;
  if (key.min !== undefined) return `an integer of at least ${key.min}`;
  if (key.max !== undefined) return `an integer of at most ${key.max}`;
  return 'an integer';
}

/** The value as an error message may show it: never a secret, never a password in a URL. */
export function describe(key: ConfigKey, v: unknown): string {
  if (v === null || v === undefined) return 'an empty value';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'string') return key.kind === 'secret' ? 'a string' : JSON.stringify(redactText(v));
  return String(v);
}

const fail = (problem: string): Checked => ({ ok: false, problem });

/** A value read from the YAML file: its type must be the key's, exactly. */
export function checkFileValue(key: ConfigKey, v: unknown): Checked {
  const wrong = () => fail(`expected ${expected(key)}, got ${describe(key, v)}`);
  if (key.type === 'boolean') return typeof v === 'boolean' ? { ok: true, value: v } : wrong();
  if (key.type === 'integer') {
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) return wrong();
    return inBounds(key, v) ? { ok: true, value: v } : wrong();
  }
  if (key.list) {
    if (!Array.isArray(v)) return wrong();
    const items: string[] = [];
    for (const [i, item] of v.entries()) {
      if (typeof item !== 'string') {
        return fail(`[${i}]: expected ${ITEM[key.kind]}, got ${describe(key, item)}`);
      }
      const text = checkText(key, item);
      if (!text.ok) return fail(`[${i}]: ${text.problem}`);
      items.push(item);
    }
    return { ok: true, value: items };
  }
  if (typeof v !== 'string') return wrong();
  return checkText(key, v);
}

/** A value read from an environment variable: text, read as the key's type. */
export function checkEnvValue(key: ConfigKey, text: string): Checked {
  if (key.type === 'boolean') {
    if (text === 'true' || text === '1') return { ok: true, value: true };
    if (text === 'false' || text === '0') return { ok: true, value: false };
    return fail(`expected true, false, 1 or 0, got ${describe(key, text)}`);
  }
  if (key.type === 'integer') {
    const n = /^-?[0-9]{1,15}$/.test(text) ? Number(text) : NaN;
    if (!Number.isSafeInteger(n) || !inBounds(key, n)) {
      return fail(`expected ${expected(key)}, got ${describe(key, text)}`);
    }
    return { ok: true, value: n };
  }
  if (key.list) {
    const items = text.split(',').map((s) => s.trim());
    for (const [i, item] of items.entries()) {
      const one = checkText(key, item);
      if (!one.ok) return fail(`item ${i + 1} of the comma-separated list: ${one.problem}`);
    }
    return { ok: true, value: items };
  }
  return checkText(key, text);
}

function inBounds(key: ConfigKey, n: number): boolean {
  return (key.min === undefined || n >= key.min) && (key.max === undefined || n <= key.max);
}

/** One text value against what its kind allows. The flag's own parser runs later on it too. */
function checkText(key: ConfigKey, text: string): Checked {
  const got = describe(key, text);
  if (text.trim() === '') return fail(`expected ${ITEM[key.kind]}, got an empty string`);
  if (key.kind === 'address') {
    try {
      parseListenAddress(text);
    } catch {
      return fail(`expected HOST:PORT, such as 127.0.0.1:8090 or [::1]:8090, got ${got}`);
    }
  }
  if (key.kind === 'duration') {
    try {
      parseDuration(key.name, text, { minMs: 0, maxMs: Number.MAX_SAFE_INTEGER });
    } catch {
      return fail(`expected ${ITEM.duration}, got ${got}`);
    }
  }
  return { ok: true, value: text };
}

/**
 * The flag's own parser over the value (bounds of a duration, ...), so a value from the file
 * or the environment is held to exactly what the flag would be; `undefined` when it passes.
 */
export async function flagProblem(key: ConfigKey, value: ConfigValue): Promise<string | undefined> {
  const flag = key.flag as { type: string; parse?: (input: string, ctx: unknown, opts: unknown) => unknown };
  if (flag.type !== 'option' || flag.parse === undefined || key.type === 'integer') return undefined;
  for (const text of Array.isArray(value) ? value : [String(value)]) {
    try {
      // oclif names a flag as it parses; the parser's messages name the key.
      await flag.parse(text, {}, { ...flag, name: key.name });
    } catch (err) {
      const message = (err as { reason?: string; message?: string }).reason ?? (err as Error).message;
      const bare = message.startsWith(`${key.name}: `) ? message.slice(key.name.length + 2) : message;
      return `${bare}, got ${describe(key, text)}`;
    }
  }
  return undefined;
}

/** Paths in a file are relative to the file's directory, not to wherever the command runs. */
export function resolvePaths(key: ConfigKey, value: ConfigValue, base: string): ConfigValue {
  const one = (text: string): string => {
    const abs = (p: string) => (isAbsolute(p) ? p : resolve(base, p));
    switch (key.kind) {
      case 'path':
        return abs(text);
      case 'id-path': {
        const at = text.indexOf('=');
        return at <= 0 ? text : `${text.slice(0, at + 1)}${abs(text.slice(at + 1))}`;
      }
      case 'name-key':
      case 'url-id-key': {
        // The key follows the first `=` (NAME=KEY) or the second (URL=ID=KEY), as their parsers split.
        const first = text.indexOf('=');
        const at = key.kind === 'name-key' || first < 0 ? first : text.indexOf('=', first + 1);
        const keyText = text.slice(at + 1);
        return at <= 0 || keyText === '' || isKeyText(keyText)
          ? text
          : `${text.slice(0, at + 1)}${abs(keyText)}`;
      }
      default:
        return text;
    }
  };
  if (Array.isArray(value)) return value.map(one);
  return typeof value === 'string' ? one(value) : value;
}

/** A public key written out (hex, base64, `ed25519:`), rather than the name of a file holding one. */
function isKeyText(text: string): boolean {
  return (
    text.startsWith('ed25519:') || /^[0-9a-fA-F]{64}$/.test(text) || /^[A-Za-z0-9+/]{43}=$/.test(text.trim())
  );
}
