import { memoryOutbox } from '../../helpers/memory-outbox.js';
import { describe, expect, it } from 'vitest';
import type { Actor } from '../../../src/core/actor.js';
import {
  journalCheck,
  revokeSurface,
  rotateSurface,
  type SurfaceOps,
  type SurfaceState,
} from '../../../src/core/surface-change.js';
import { runSync, type UseCase } from '../../../src/core/use-case.js';
import type { JournalAppend } from '../../../src/evidence/journal-append.js';
import { refusal } from '../../helpers/coded-error.js';
import { appendTo } from '../../helpers/memory-journal.js';

const NOW = new Date('2026-03-01T10:00:00.000Z');
const AT = NOW.toISOString();
const clock = () => NOW;
const admin: Actor = {
  tenantId: 'acme',
  id: 'alice',
  kind: 'human',
  roles: ['administrator'],
  managerId: null,
  certSubject: null,
  displayName: null,
  createdAt: AT,
};

const stored = (more: Partial<SurfaceState> = {}): SurfaceState => ({
  tenantId: 'acme',
  surfaceId: 'crm',
  credentialRef: 'env:CRM_2',
  retiredRefs: ['env:CRM_1'],
  status: 'active',
  rotatedAt: '2026-02-01T00:00:00.000Z',
  revokedAt: null,
  updatedBy: 'alice',
  updatedAt: '2026-02-01T00:00:00.000Z',
  ...more,
});

/** The surface_states row of `crm` (or none) and the journal; the writes behave as the guarded SQL does. */
function memory(row: SurfaceState | undefined) {
  const state = { row: row && { ...row }, appended: [] as JournalAppend[] };
  const ops: SurfaceOps = {
    ...memoryOutbox().ops,
    surface: () => state.row && { ...state.row },
    insertSurface: (s) => {
      if (state.row) return 0;
      state.row = s;
      return 1;
    },
    updateSurface: (s, was) => {
      const r = state.row;
      if (
        !r ||
        r.credentialRef !== was.credentialRef ||
        r.status !== was.status ||
        r.updatedAt !== was.updatedAt
      )
        return 0;
      state.row = s;
      return 1;
    },
    append: appendTo(state.appended),
  };
  return { ops, state };
}

const rotate = (next: string) =>
  rotateSurface('acme', 'crm', { documentRef: 'env:CRM_DOC', next, actor: admin }, clock);
const revoke = () => revokeSurface('acme', 'crm', { documentRef: 'env:CRM_DOC', actor: admin }, clock);

describe('integration operations: surface changes, once for both stores', () => {
  it('rotates a surface never changed away from its document’s reference, and stores its first state', () => {
    const { ops, state } = memory(undefined);
    const { state: after, receipt } = runSync(rotate('env:CRM_NEW'), ops);
    expect(after).toEqual({
      tenantId: 'acme',
      surfaceId: 'crm',
      credentialRef: 'env:CRM_NEW',
      retiredRefs: ['env:CRM_DOC'],
      status: 'active',
      rotatedAt: AT,
      revokedAt: null,
      updatedBy: 'alice',
      updatedAt: AT,
    });
    expect(state.row).toEqual(after);
    expect(state.appended[0]!.record).toMatchObject({
      action: 'rotate',
      outcome: 'rotated',
      reason: 'surface crm moved to a new credential; the old credential is retired',
      credential_ref: 'env:CRM_NEW',
      previous_ref: 'env:CRM_DOC',
    });
    expect(receipt.sequence).toBe(1);
  });

  it('reactivates a revoked surface by rotating it, and revokes an active one', () => {
    const revoked = memory(stored({ status: 'revoked', revokedAt: AT }));
    runSync(rotate('env:CRM_3'), revoked.ops);
    expect(revoked.state.row).toMatchObject({ status: 'active', retiredRefs: ['env:CRM_1', 'env:CRM_2'] });
    expect(revoked.state.appended[0]!.record).toMatchObject({
      reason: 'surface crm moved to a new credential and is active again; the old credential is retired',
    });

    const active = memory(stored());
    runSync(revoke(), active.ops);
    expect(active.state.row).toMatchObject({ status: 'revoked', revokedAt: AT, credentialRef: 'env:CRM_2' });
    expect(active.state.appended[0]!.record).toMatchObject({ action: 'revoke', outcome: 'revoked' });
  });

  it('refuses each change it must, with its code, message and remedy, and writes nothing', () => {
    const cases: [SurfaceState | undefined, () => UseCase<SurfaceOps, unknown>, object][] = [
      [
        stored(),
        () => rotate('env:CRM_2'),
        { code: 'credential_in_use', message: 'surface crm already uses that credential reference' },
      ],
      [
        undefined,
        () => rotate('env:CRM_DOC'),
        { code: 'credential_in_use', message: 'surface crm already uses that credential reference' },
      ],
      [
        stored(),
        () => rotate('env:CRM_1'),
        {
          code: 'credential_retired',
          message: 'surface crm retired that credential reference',
          remedy: 'rotate to a new reference, such as a new secret (`svc secret set`)',
        },
      ],
      [
        stored({ status: 'revoked', revokedAt: '2026-02-02T00:00:00.000Z' }),
        revoke,
        {
          kind: 'conflict',
          code: 'surface_revoked',
          message: 'surface crm is already revoked (at 2026-02-02T00:00:00.000Z)',
          remedy: 'rotate it to a new credential reference to use it again',
        },
      ],
    ];
    for (const [row, useCase, expected] of cases) {
      const { ops, state } = memory(row);
      expect(refusal(useCase(), ops)).toMatchObject(expected);
      expect(state.row).toEqual(row);
      expect(state.appended).toEqual([]);
    }
  });

  it('journals a connection check without changing the surface', () => {
    const { ops, state } = memory(stored());
    runSync(
      journalCheck(
        'acme',
        'crm',
        admin,
        { credentialRef: 'env:CRM_2', answer: 'ok', reason: 'r', detail: { a: 1 } },
        clock,
      ),
      ops,
    );
    expect(state.row).toEqual(stored());
    expect(state.appended[0]!.record).toMatchObject({
      action: 'connection_check',
      outcome: 'ok',
      effect: { a: 1 },
    });
  });

  it('fails with a coded conflict when the surface changed between the read and the guarded write', () => {
    // Another writer stores a first state, or rotates the stored one, just before this write.
    const first = memory(undefined);
    const racedInsert: SurfaceOps = {
      ...first.ops,
      insertSurface: (s) => {
        first.ops.insertSurface(stored());
        return first.ops.insertSurface(s);
      },
    };
    const second = memory(stored());
    const racedUpdate: SurfaceOps = {
      ...second.ops,
      updateSurface: (s, was) => {
        second.ops.updateSurface(stored({ credentialRef: 'env:CRM_9', updatedAt: AT }), was);
        return second.ops.updateSurface(s, was);
      },
    };
    for (const [ops, state] of [
      [racedInsert, first.state],
      [racedUpdate, second.state],
    ] as const) {
      expect(refusal(revoke(), ops)).toMatchObject({
        kind: 'conflict',
        code: 'conflict',
        message:
          'the state of surface crm changed 0 rows, not one: the state it was decided on no longer holds; retry',
      });
      expect(state.appended).toEqual([]);
    }
  });
});
