import { ESLint } from 'eslint';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const eslint = new ESLint({ cwd: ROOT });
const config = (await import(pathToFileURL(join(ROOT, 'eslint.config.js')).href)) as {
  useCasesInAdapters: Record<string, string>;
};

async function refusals(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.message);
}

const raising = (code: string) =>
  `import { SvcError } from '../../core/errors.js';\nexport function f(): never {\n  throw new SvcError(${code}, 'x');\n}\n`;

describe('business errors stay out of the store adapters', () => {
  for (const adapter of ['sqlite', 'postgres']) {
    it(`a new ${adapter} file may not raise a domain code, nor a code computed at run time`, async () => {
      for (const code of [
        "'conflict'",
        "'not_found'",
        "'forbidden'",
        "'invalid_request'",
        "'already_decided'",
        'kind',
      ]) {
        expect(await refusals(`src/store/${adapter}/new-use-case.ts`, raising(code)), code).toEqual([
          expect.stringContaining('a store adapter only reads and writes'),
        ]);
      }
    });

    it(`a ${adapter} file may report a store failure`, async () => {
      for (const code of ["'unavailable'", "'internal'"]) {
        expect(await refusals(`src/store/${adapter}/new-use-case.ts`, raising(code)), code).toEqual([]);
      }
    });

    it(`the ${adapter} file that maps driver errors may use any code`, async () => {
      expect(await refusals(`src/store/${adapter}/database.ts`, raising("'already_exists'"))).toEqual([]);
    });
  }

  it('leaves the store ports and core alone', async () => {
    expect(await refusals('src/store/open.ts', raising("'usage'"))).toEqual([]);
    expect(await refusals('src/core/probe.ts', raising("'conflict'"))).toEqual([]);
  });

  // The allow-list shrinks as use cases move to core (issue 24, item 1): an entry whose files
  // no longer raise a domain code must go, so the exemption cannot outlive its reason.
  const listed = Object.keys(config.useCasesInAdapters).flatMap((glob) =>
    ['sqlite', 'postgres'].map((adapter) => glob.replace('{sqlite,postgres}', adapter)),
  );
  for (const file of listed) {
    it(`${file} still raises a business error (else remove it from useCasesInAdapters)`, async () => {
      const text = readFileSync(join(ROOT, file), 'utf8');
      const probe = file.replace(/[^/]+$/, 'probe-of-listed-file.ts');
      expect((await refusals(probe, text)).length).toBeGreaterThan(0);
      expect(await refusals(file, text)).toEqual([]);
    });
  }
});
