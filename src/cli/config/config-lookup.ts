import { existsSync } from 'node:fs';
import { SvcError } from '../../core/errors.js';
import { readConfigFile } from './config-file.js';
import type { ConfigKey } from './config-key.js';
import type { ConfigValue } from './config-value.js';

/**
 * One key as a configuration file sets it, the whole file checked as a start would check it
 * (relative paths resolved against its directory). Undefined when the file does not exist
 * yet or does not set the key; a file that does not check is refused.
 */
export async function fileSetting(
  path: string,
  keys: readonly ConfigKey[],
  key: string,
): Promise<ConfigValue | undefined> {
  if (!existsSync(path)) return undefined;
  const file = await readConfigFile(path, process.cwd(), keys);
  if (file.problems.length > 0) {
    throw new SvcError('usage', file.problems.join('\n'), {
      field: 'config',
      remedy: `svc config check ${path} shows what to fix`,
    });
  }
  return file.settings.get(key)?.value;
}
