import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FINDING_CODES } from '../../../src/evidence/verify/index.js';

const README = readFileSync(
  fileURLToPath(new URL('../../../src/evidence/verify/README.md', import.meta.url)),
  'utf8',
);

describe('verify/README.md', () => {
  it('documents every finding code, and no other', () => {
    const table = README.slice(README.indexOf('## Finding codes'));
    const documented = [...table.matchAll(/^\|\s*`([a-z0-9_]+)`\s*\|/gm)].map((match) => match[1]);
    expect(documented).toEqual(Object.keys(FINDING_CODES));
  });

  it('uses only snake_case codes', () => {
    for (const code of Object.keys(FINDING_CODES)) expect(code).toMatch(/^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/);
  });
});
