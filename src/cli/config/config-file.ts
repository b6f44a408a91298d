import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { isMap, isScalar, LineCounter, parseDocument } from 'yaml';
import { readTextFile } from '../../provisioning/text-file.js';
import { closestWord } from '../command-suggestion.js';
import type { ConfigKey } from './config-key.js';
import { checkFileValue, flagProblem, resolvePaths, type ConfigValue } from './config-value.js';

/** A file the operator writes: far smaller than this; anything larger is a wrong path. */
export const MAX_CONFIG_FILE = 1 << 20;
/** Aliases a configuration file may expand (it needs none): a bound against alias bombs. */
const MAX_ALIASES = 50;

export interface FileSetting {
  value: ConfigValue;
  line: number;
}

export interface ConfigFile {
  /** as the operator named it, for messages */
  name: string;
  /** absolute: relative paths in it resolve against its directory */
  path: string;
  settings: Map<string, FileSetting>;
  /** every problem, each a line naming the file, the key and what was expected */
  problems: string[];
}

/** Read and check a configuration file against the command's keys; every problem at once. */
export async function readConfigFile(
  name: string,
  cwd: string,
  keys: readonly ConfigKey[],
): Promise<ConfigFile> {
  const path = resolve(cwd, name);
  const text = readTextFile('config', path, MAX_CONFIG_FILE);
  const file: ConfigFile = { name, path, settings: new Map(), problems: [] };
  worldWritable(file);
  await parseConfig(text, file, keys);
  return file;
}

/** Anyone on the machine could rewrite the daemon's settings (TLS off, another witness): refused. */
function worldWritable(file: ConfigFile): void {
  if ((statSync(file.path).mode & 0o002) !== 0) {
    file.problems.push(
      `config ${file.name}: the file is writable by every user of this machine; run chmod o-w ${file.name}`,
    );
  }
}

export async function parseConfig(text: string, file: ConfigFile, keys: readonly ConfigKey[]): Promise<void> {
  const say = (line: number, what: string) =>
    file.problems.push(`config ${file.name}: ${what}${line > 0 ? ` (line ${line})` : ''}`);
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const lineOf = (offset: number | undefined) => (offset === undefined ? 0 : lines.linePos(offset).line);
  for (const e of [...doc.errors, ...doc.warnings]) {
    // yaml says "Map keys must be unique" without the key: name it.
    const dup = e.code === 'DUPLICATE_KEY' ? text.slice(e.pos[0]).split(/[:\n]/)[0]!.trim() : undefined;
    say(lineOf(e.pos[0]), dup !== undefined ? `${dup}: given twice` : e.message.split('\n')[0]!);
  }
  if (doc.errors.length > 0 || doc.warnings.length > 0) return;
  // An empty file (or one of comments only, as `svc config example` writes) sets nothing.
  if (doc.contents === null) return;
  if (!isMap(doc.contents)) {
    say(lineOf(doc.contents.range?.[0]), 'expected a mapping of keys (key: value) at the top level');
    return;
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (err) {
    say(0, (err as Error).message);
    return;
  }
  const byName = new Map(keys.map((k) => [k.name, k]));
  for (const pair of doc.contents.items) {
    const name = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    const line = lineOf((pair.key as { range?: number[] } | null)?.range?.[0]);
    const key = byName.get(name);
    if (key === undefined) {
      const near = closestWord(name, [...byName.keys()]);
      say(line, `${name}: unknown key${near !== undefined ? `; did you mean ${near}?` : ''}`);
      continue;
    }
    const raw = (data as Record<string, unknown>)[name];
    const checked = checkFileValue(key, raw);
    if (!checked.ok) {
      say(line, `${name}${checked.problem.startsWith('[') ? '' : ': '}${checked.problem}`);
      continue;
    }
    const problem = await flagProblem(key, checked.value);
    if (problem !== undefined) {
      say(line, `${name}: ${problem}`);
      continue;
    }
    file.settings.set(name, { value: resolvePaths(key, checked.value, dirname(file.path)), line });
  }
}
