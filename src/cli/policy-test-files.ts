/**
 * The files of a policy test run: the suites a list of paths names (a directory is
 * searched for `*_test.yaml`, `*_test.yml` and `*_test.json`), and the policy texts they
 * name. Every path a bad run could name is a usage error (exit 2), so `svc policy test`'s
 * exit codes keep their meaning: 3 is only ever a policy that does not validate.
 */
import { readdirSync, statSync, type Stats } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { SvcError } from '../core/errors.js';
import { readBoundedText } from '../io/bounded-file.js';
import { parseSuite, SUITE_FILE, type PolicyTestSuite } from '../policy/policy-test-suite.js';

/** A suite or a policy is text an operator writes: far smaller than this. */
const MAX_FILE = 1 << 20;
/** More suites than any policy has reason for: a wrong directory (`/`) fails at once. */
const MAX_SUITES = 1000;
/** Directories a search never enters: dependencies and tools' state, not the operator's tests. */
const SKIPPED = new Set(['node_modules', '.git']);

export interface LoadedSuite {
  suite: PolicyTestSuite;
  /** absolute path of the policy the suite names (`policy:`), relative to the suite file */
  policyPath?: string;
}

/** The suite files under `paths`, each once, in a stable order (as given; a directory's sorted). */
export function findSuiteFiles(paths: readonly string[], cwd: string): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  const add = (shown: string) => {
    const key = resolve(cwd, shown);
    if (seen.has(key)) return;
    seen.add(key);
    found.push(shown);
    if (found.length > MAX_SUITES) {
      throw new SvcError('usage', `more than ${MAX_SUITES} test suites under ${paths.join(', ')}`, {
        field: 'paths',
        remedy: 'name the directories that hold the policy tests',
      });
    }
  };
  for (const path of paths) {
    const st = statOrNull(resolve(cwd, path));
    if (st === null) {
      throw new SvcError('usage', `paths: ${path} does not exist`, {
        field: 'paths',
        remedy:
          'name test suite files (ending _test.yaml, _test.yml or _test.json) or directories holding them',
      });
    }
    if (st.isDirectory()) {
      const before = found.length;
      search(resolve(cwd, path), path, add);
      if (found.length === before) {
        throw new SvcError(
          'usage',
          `paths: ${path} holds no test suite (a file ending _test.yaml, _test.yml or _test.json)`,
          {
            field: 'paths',
          },
        );
      }
    } else {
      add(path);
    }
  }
  return found;
}

function search(dir: string, shown: string, add: (shown: string) => void): void {
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  for (const e of entries) {
    const inner = join(shown, e.name);
    // Symbolic links are not followed: a link cycle cannot make the search endless.
    if (e.isDirectory() && !SKIPPED.has(e.name)) search(join(dir, e.name), inner, add);
    else if (e.isFile() && SUITE_FILE.test(e.name)) add(inner);
  }
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

/** Reads and parses each suite; a bad one fails the run, naming its file, case and field. */
export function loadSuites(files: readonly string[], cwd: string): LoadedSuite[] {
  return files.map((file) => {
    const suite = parseSuite(readInput('paths', resolve(cwd, file)), file);
    const loaded: LoadedSuite = { suite };
    if (suite.policy !== undefined) loaded.policyPath = resolve(dirname(resolve(cwd, file)), suite.policy);
    return loaded;
  });
}

/** A policy file's text. */
export function readPolicyFile(path: string, field: string): string {
  return readInput(field, path);
}

/** How a policy a suite names is shown: relative to the working directory. */
export function shownPath(path: string, cwd: string): string {
  const r = relative(cwd, path);
  return r === '' || r.startsWith('..') ? path : r;
}

function readInput(field: string, path: string): string {
  return readBoundedText(field, path, MAX_FILE, { code: 'usage' });
}
