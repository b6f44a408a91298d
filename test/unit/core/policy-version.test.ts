import { describe, expect, it } from 'vitest';
import { SvcError } from '../../../src/core/errors.js';
import { createHash } from 'node:crypto';
import {
  setPolicy,
  type PolicyOps,
  type PolicyRecord,
  type PolicyVersion,
} from '../../../src/core/policy-version.js';
import { runSync } from '../../../src/core/use-case.js';

const AT = '2026-03-01T10:00:00.000Z';

/** The policies row of `acme` (or none), its history and the registry version; the writes behave as the guarded SQL does. */
function memory(row: PolicyRecord | undefined, history: PolicyVersion[] = []) {
  const state = { row, history, registry: 0 };
  const ops: PolicyOps = {
    policy: () => state.row,
    insertPolicy: (r) => {
      if (state.row) return 0;
      state.row = r;
      return 1;
    },
    updatePolicy: (r, expected) => {
      if (state.row?.version !== expected) return 0;
      state.row = r;
      return 1;
    },
    appendVersion: (v) => {
      if (state.history.some((h) => h.version === v.version)) return 0;
      state.history = [...state.history, v];
      return 1;
    },
    bumpRegistry: () => void state.registry++,
  };
  return { ops, state };
}

const v3: PolicyRecord = {
  tenantId: 'acme',
  version: 3,
  text: 'permit(principal, action, resource);',
  updatedAt: 'then',
};

describe('setting a tenant’s policy: the use case, once for both stores', () => {
  it('stores the first text as version 1 and each new text as the next version, moving the registry', () => {
    const first = memory(undefined);
    expect(runSync(setPolicy('acme', 'forbid(principal, action, resource);', AT), first.ops)).toEqual({
      tenantId: 'acme',
      version: 1,
      text: 'forbid(principal, action, resource);',
      updatedAt: AT,
    });
    expect(first.state.registry).toBe(1);

    const next = memory(v3);
    expect(runSync(setPolicy('acme', 'forbid(principal, action, resource);', AT), next.ops)).toMatchObject({
      version: 4,
    });
    expect(next.state).toMatchObject({ row: { version: 4 }, registry: 1 });
  });

  it('keeps the version, and the registry, when the text is unchanged', () => {
    const { ops, state } = memory(v3);
    expect(runSync(setPolicy('acme', v3.text, AT), ops)).toEqual(v3);
    expect(state).toEqual({ row: v3, history: [], registry: 0 });
  });

  it('keeps each new version in the history with its SHA-256, who set it and why; unknown when not said', () => {
    const text = 'forbid(principal, action, resource);\n// é\n';
    const { ops, state } = memory(v3);
    runSync(setPolicy('acme', text, AT, { setBy: 'alice', message: 'tighten' }), ops);
    runSync(setPolicy('acme', v3.text, 'later'), ops);
    expect(state.history).toEqual([
      {
        tenantId: 'acme',
        version: 4,
        text,
        sha256: createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex'),
        setBy: 'alice',
        message: 'tighten',
        setAt: AT,
      },
      expect.objectContaining({ version: 5, text: v3.text, setBy: 'unknown', message: null, setAt: 'later' }),
    ]);
  });

  it('fails with a coded conflict when the version number is already in the history, moving nothing', () => {
    const taken = { ...v3, version: 4, sha256: '', setBy: 'x', message: null, setAt: 'then' };
    const { ops, state } = memory(v3, [taken]);
    expect(() => runSync(setPolicy('acme', 'forbid(principal, action, resource);', AT), ops)).toThrow(
      'version 4 of the policy of tenant acme changed 0 rows, not one',
    );
    expect(state.registry).toBe(0);
  });

  it('fails with a coded conflict when the policy changed between the read and the guarded write', () => {
    for (const row of [undefined, v3]) {
      const { ops, state } = memory(row);
      // Another writer stores version n + 1 just before this write.
      const raced: PolicyOps = {
        ...ops,
        insertPolicy: (r) => {
          ops.insertPolicy({ ...r, text: 'other' });
          return ops.insertPolicy(r);
        },
        updatePolicy: (r, expected) => {
          ops.updatePolicy({ ...r, text: 'other' }, expected);
          return ops.updatePolicy(r, expected);
        },
      };
      let err: unknown;
      try {
        runSync(setPolicy('acme', 'forbid(principal, action, resource);', AT), raced);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(SvcError);
      expect(err).toMatchObject({
        kind: 'conflict',
        message:
          'the policy of tenant acme changed 0 rows, not one: the state it was decided on no longer holds; retry',
      });
      expect(state.registry).toBe(0);
    }
  });
});
