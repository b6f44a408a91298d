import { ESLint } from 'eslint';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The repository's own eslint.config.js, applied to source text placed at a path in src/.
const eslint = new ESLint({ cwd: join(import.meta.dirname, '..', '..', '..') });

async function restricted(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

// The folders the fence gained (code review 2026-11-26, 1.1), and src/io.
const added = ['provisioning', 'integration', 'export', 'verifier', 'witness', 'sdk', 'mcp', 'io'];

describe('the I/O fence of the pure layers', () => {
  for (const layer of ['core', 'policy', 'evidence']) {
    for (const folder of added) {
      it(`${layer}/ may not import ${folder}/`, async () => {
        const messages = await restricted(
          `src/${layer}/probe.ts`,
          `import { x } from '../${folder}/a.js';\nexport const y = x;\n`,
        );
        expect(messages).toEqual([expect.stringContaining('may not import the I/O layers')]);
      });
    }
  }

  it('the verifier core (evidence/verify) is fenced from the same I/O layers, not only from store and daemon', async () => {
    for (const folder of [...added, 'connectors', 'http', 'console']) {
      const messages = await restricted(
        'src/evidence/verify/probe.ts',
        `import { x } from '../../${folder}/a.js';\nexport const y = x;\n`,
      );
      expect(messages, folder).toEqual([expect.stringContaining('imports only the evidence primitives')]);
    }
  });

  it('I/O packages are fenced by scope, as the node: modules are by name', async () => {
    const messages = await restricted(
      'src/policy/probe.ts',
      "import helmet from '@fastify/helmet';\nexport const h = helmet;\n",
    );
    expect(messages).toEqual([expect.stringContaining('do no I/O')]);
  });

  it('lets a pure layer import another pure layer, and the verifier core the evidence primitives', async () => {
    expect(
      await restricted(
        'src/core/probe.ts',
        "import { cjson } from '../evidence/cjson.js';\nexport const c = cjson;\n",
      ),
    ).toEqual([]);
    expect(
      await restricted(
        'src/evidence/verify/probe.ts',
        "import { cjson } from '../cjson.js';\nexport const c = cjson;\n",
      ),
    ).toEqual([]);
  });
});
