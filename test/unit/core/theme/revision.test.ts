import { describe, expect, it } from 'vitest';
import {
  saveTheme,
  type NewThemeRevision,
  type ThemeOps,
  type ThemeSave,
} from '../../../../src/core/theme/revision.js';
import { defaultTheme } from '../../../../src/core/theme/theme.js';
import { runSync } from '../../../../src/core/use-case.js';
import { codedError } from '../../../helpers/coded-error.js';

const AT = '2026-03-01T10:00:00.000Z';
const save = (more: Partial<ThemeSave> = {}): ThemeSave => ({
  tenantId: 'acme',
  theme: defaultTheme('light'),
  source: 'editor',
  createdBy: 'alice',
  at: AT,
  ...more,
});

/** A tenant's stored revisions; the insert behaves as the guarded SQL does (one row per number). */
function memory(latest: number) {
  const stored: NewThemeRevision[] = [];
  const ops: ThemeOps = {
    latestRevision: () => Math.max(latest, ...stored.map((r) => r.revision)),
    insertRevision: (r) => {
      if (r.revision <= latest || stored.some((s) => s.revision === r.revision)) return 0;
      stored.push(r);
      return 1;
    },
  };
  return { ops, stored };
}

describe('saving a theme: the use case, once for both stores', () => {
  it('adds the next revision, from the one the editor saw or (provisioning) after the newest', () => {
    const logo = { name: `logo-${'a'.repeat(64)}.png`, bytes: new Uint8Array([1, 2]) };
    for (const [latest, more] of [
      [0, { expected: 0, logo }],
      [4, { expected: 4 }],
      [4, { source: 'install' as const, createdBy: null }],
    ] as const) {
      const { ops, stored } = memory(latest);
      const input = save(more);
      expect(runSync(saveTheme(input), ops)).toEqual({
        tenantId: 'acme',
        revision: latest + 1,
        theme: defaultTheme('light'),
        source: input.source,
        createdBy: input.createdBy,
        createdAt: AT,
      });
      expect(stored).toEqual([
        {
          tenantId: 'acme',
          revision: latest + 1,
          document: JSON.stringify(defaultTheme('light')),
          source: input.source,
          createdBy: input.createdBy,
          createdAt: AT,
          logo: input.logo ?? null,
        },
      ]);
    }
  });

  it('refuses a save from a revision that is no longer the current one, and stores nothing', () => {
    const { ops, stored } = memory(3);
    expect(codedError(() => runSync(saveTheme(save({ expected: 2 })), ops))).toMatchObject({
      kind: 'conflict',
      code: 'stale_revision',
      field: 'revision',
      message: 'someone else changed the appearance: you edited revision 2, the current revision is 3',
      remedy: 'reload the appearance settings, reapply your change and save again',
    });
    expect(stored).toEqual([]);
  });

  it('fails with a coded conflict when another revision took the number between the read and the insert', () => {
    const { ops, stored } = memory(1);
    const raced: ThemeOps = {
      ...ops,
      insertRevision: (r) => {
        ops.insertRevision({ ...r, createdBy: 'bob' });
        return ops.insertRevision(r);
      },
    };
    expect(codedError(() => runSync(saveTheme(save({ expected: 1 })), raced))).toMatchObject({
      kind: 'conflict',
      code: 'conflict',
      message:
        "revision 2 of tenant acme's theme changed 0 rows, not one: the state it was decided on no longer holds; retry",
    });
    expect(stored.map((r) => r.createdBy)).toEqual(['bob']);
  });
});
