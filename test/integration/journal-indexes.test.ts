import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { INTENT_TO_OBSERVE_SQL } from '../../src/store/sqlite/effects.js';
import { RECEIPTS_BY_TASK_SQL } from '../../src/store/sqlite/receipts.js';
import { tmpDir } from '../helpers/tmp.js';

// The plans of the statements the store really prepares: a journal access must be an index
// probe on more than the tenant (tenant_id alone walks the tenant's whole journal).
describe('journal lookups use an index, never a walk of the tenant journal', () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  function journalSteps(sql: string, params: unknown): string[] {
    const t = tmpDir();
    cleanup = t.cleanup;
    const db = openDatabase(join(t.path, 'svc.db'));
    try {
      const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[];
      return plan.map((p) => p.detail).filter((d) => /^(SCAN|SEARCH) (j|journal)\b/.test(d));
    } finally {
      db.close();
    }
  }

  it('GET /v1/receipts?task_id= reads one task through journal_by_task', () => {
    const steps = journalSteps(RECEIPTS_BY_TASK_SQL, {
      tenant: 'acme',
      all: 0,
      viewer: 'bot',
      task: 'launch',
      after: 0,
      limit: 51,
    });
    expect(steps).toEqual([
      expect.stringMatching(
        /^SEARCH j USING INDEX journal_by_task \(tenant_id=\? AND task_id=\? AND sequence>\?\)$/,
      ),
    ]);
  });

  it('POST /v1/observe finds an earlier observation through journal_observations', () => {
    const steps = journalSteps(INTENT_TO_OBSERVE_SQL, ['acme', 'int_0']);
    expect(steps).toEqual([
      expect.stringMatching(
        /^SEARCH j USING (COVERING )?INDEX journal_observations \(tenant_id=\? AND intent_id=\?\)$/,
      ),
    ]);
  });
});
