import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const SCRIPT = join(import.meta.dirname, '..', '..', 'lint', 'import-cycles.mjs');
const trees: string[] = [];

/** A throw-away source tree laid out as the repository is, checked by the real lint script. */
function check(files: Record<string, string>): { status: number | null; out: string } {
  const root = mkdtempSync(join(tmpdir(), 'svc-cycles-'));
  trees.push(root);
  const all = {
    'tsconfig.json': JSON.stringify({
      compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true },
      include: ['src', 'commands'],
    }),
    ...files,
  };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const run = spawnSync(process.execPath, [SCRIPT], { cwd: root, encoding: 'utf8' });
  return { status: run.status, out: run.stdout + run.stderr };
}

afterEach(() => {
  for (const root of trees.splice(0)) rmSync(root, { recursive: true, force: true });
});

// A store adapter implements the store's ports (type-only) and open.ts picks the adapter:
// both live in src/store, so this is one folder and no cycle.
const layered = {
  'src/core/money.ts': 'export const formatUsd = (n: number): string => `$${n}`;\n',
  'src/evidence/record.ts':
    "import { formatUsd } from '../core/money.js';\nexport const line = formatUsd(1);\n",
  'src/store/ports.ts': 'export interface Store { close(): void }\n',
  'src/store/sqlite/store.ts':
    "import type { Store } from '../ports.js';\nexport const open = (): Store => ({ close() {} });\n",
  'src/store/open.ts':
    "import type { Store } from './ports.js';\nimport { open } from './sqlite/store.js';\nexport const store: Store = open();\n",
  'commands/run.ts': "import { store } from '../src/store/open.js';\nstore.close();\n",
};

describe('the import-cycle check of npm run lint', () => {
  it('passes a layered tree, a store adapter counting as part of src/store', () => {
    const { status, out } = check(layered);
    expect(out).toContain('0 between files, 0 between top-level folders');
    expect(status).toBe(0);
  });

  it('fails on a file cycle made only of type imports, and prints it', () => {
    const { status, out } = check({
      ...layered,
      'src/provisioning/apply.ts':
        "import type { Plan } from './apply-tasks.js';\nexport interface Step { plan?: Plan }\n",
      'src/provisioning/apply-tasks.ts':
        "import type { Step } from './apply.js';\nexport interface Plan { steps: Step[] }\n",
    });
    expect(out).toContain(
      'error no-file-cycle: src/provisioning/apply-tasks.ts -> src/provisioning/apply.ts (type) -> src/provisioning/apply-tasks.ts (type)',
    );
    expect(status).toBe(1);
  });

  it('fails on a cycle between top-level folders that no file cycle shows, and names the imports', () => {
    const { status, out } = check({
      ...layered,
      'src/evidence/cjson.ts': 'export const canonical = (v: unknown): string => JSON.stringify(v);\n',
      'src/core/request.ts':
        "import { canonical } from '../evidence/cjson.js';\nexport const text = canonical({});\n",
    });
    expect(out).not.toContain('no-file-cycle');
    expect(out).toContain('error no-folder-cycle: src/core, src/evidence');
    expect(out).toContain('src/core -> src/evidence  (src/core/request.ts -> src/evidence/cjson.ts)');
    expect(out).toContain('src/evidence -> src/core  (src/evidence/record.ts -> src/core/money.ts)');
    expect(status).toBe(1);
  });

  it('counts re-exports and dynamic imports as edges', () => {
    const { status, out } = check({
      ...layered,
      'src/core/index.ts': "export { line } from '../evidence/record.js';\n",
      'src/witness/log-keys.ts':
        "export const keys = async () => (await import('../verifier/trust.js')).trust;\n",
      'src/verifier/trust.ts': "import { keys } from '../witness/log-keys.js';\nexport const trust = keys;\n",
    });
    expect(out).toContain('error no-folder-cycle: src/core, src/evidence');
    expect(out).toContain('error no-file-cycle: src/verifier/trust.ts -> src/witness/log-keys.ts');
    expect(out).toContain('error no-folder-cycle: src/verifier, src/witness');
    expect(status).toBe(1);
  });

  it('fails when a local import cannot be resolved: an edge it cannot see could hide a cycle', () => {
    const { status, out } = check({
      ...layered,
      'src/core/lost.ts': "import { gone } from './gone.js';\nexport const x = gone;\n",
    });
    expect(out).toContain('error no-unresolved-local: src/core/lost.ts -> ./gone.js');
    expect(status).toBe(1);
  });
});
