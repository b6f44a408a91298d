import type { ConfigKey } from './config-key.js';
import { checkEnvValue, flagProblem, type ConfigValue } from './config-value.js';

export interface EnvSetting {
  value: ConfigValue;
  variable: string;
}

/**
 * The command's keys set in the environment: `SVC_` and the key, upper-cased, `-` as `_`.
 * Only the keys of this command's schema are read, so the client's variables (`SVC_TOKEN`,
 * `SVC_ENDPOINT`, `SVC_CA_CERT`) never become settings of a listener. An empty variable is
 * unset, as `SVC_HOME` has always been.
 */
export async function readConfigEnv(
  keys: readonly ConfigKey[],
  env: NodeJS.ProcessEnv,
): Promise<{ settings: Map<string, EnvSetting>; problems: string[] }> {
  const settings = new Map<string, EnvSetting>();
  const problems: string[] = [];
  for (const key of keys) {
    const text = env[key.env];
    if (text === undefined || text === '') continue;
    const checked = checkEnvValue(key, text);
    const problem = checked.ok ? await flagProblem(key, checked.value) : checked.problem;
    if (problem !== undefined || !checked.ok) {
      problems.push(`env ${key.env}: ${problem ?? ''}`);
      continue;
    }
    settings.set(key.name, { value: checked.value, variable: key.env });
  }
  return { settings, problems };
}
