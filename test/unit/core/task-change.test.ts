import { describe, expect, it } from 'vitest';
import type { SvcError } from '../../../src/core/errors.js';
import {
  budgetChange,
  checkBudgetCovers,
  taskAssignment,
  taskClose,
  taskCreation,
  type TaskOps,
} from '../../../src/core/task-change.js';
import type { Task } from '../../../src/core/task.js';
import { runSync, type UseCase } from '../../../src/core/use-case.js';
import { taskRecord } from '../../helpers/registry-records.js';
import { refusal } from '../../helpers/coded-error.js';

const AT = '2026-06-01T12:00:00.000Z';
const LATER = '2026-06-02T08:00:00.000Z';

function task(id: string, over: Partial<Task> = {}): Task {
  return taskRecord('acme', id, AT, { budgetMicros: 10_000_000n, actors: [], ...over });
}

/**
 * Tasks in memory, with the guarded writes applied as the adapters' SQL applies them: only
 * while the row still has the status (and, for a budget, no more reserved) the write names.
 */
class MemoryTasks implements TaskOps {
  readonly rows = new Map<string, Task>();
  readonly calls: string[] = [];

  constructor(...tasks: Task[]) {
    for (const t of tasks) this.rows.set(t.id, structuredClone(t));
  }

  task(tenantId: string, id: string): Task | undefined {
    this.calls.push(`task ${id}`);
    const t = this.rows.get(id);
    return t && t.tenantId === tenantId ? structuredClone(t) : undefined;
  }

  insert(t: Task, parentStatus: Task['status'] | null): number {
    this.calls.push(`insert ${t.id}`);
    if (t.parentId !== null && this.rows.get(t.parentId)?.status !== parentStatus) return 0;
    this.rows.set(t.id, { ...structuredClone(t), actors: [] });
    return 1;
  }

  close(_tenantId: string, id: string, at: string, status: Task['status']): number {
    this.calls.push(`close ${id}`);
    const t = this.rows.get(id);
    if (t?.status !== status) return 0;
    Object.assign(t, { status: 'closed', closedAt: at });
    return 1;
  }

  setBudget(_tenantId: string, id: string, budget: bigint, status: Task['status']): number {
    this.calls.push(`setBudget ${id}`);
    const t = this.rows.get(id);
    if (t?.status !== status || t.reservedMicros > budget) return 0;
    t.budgetMicros = budget;
    return 1;
  }

  addActors(_tenantId: string, id: string, actorIds: readonly string[]): void {
    this.calls.push(`addActors ${id} ${actorIds.join(',')}`);
    const t = this.rows.get(id)!;
    t.actors = [...new Set([...t.actors, ...actorIds])].sort();
  }
}

/**
 * The ops with one write preceded by another writer's change: what the tenant lock and the
 * single writer rule out, so only the guard can catch it.
 */
function racing<K extends keyof TaskOps>(
  ops: MemoryTasks,
  name: K,
  change: (rows: Map<string, Task>) => void,
) {
  const original = ops[name].bind(ops) as (...a: unknown[]) => unknown;
  return Object.assign(Object.create(ops) as MemoryTasks, {
    [name]: (...args: unknown[]) => {
      change(ops.rows);
      return original(...args);
    },
  });
}

const refused = <R>(useCase: UseCase<TaskOps, R>, ops: TaskOps) =>
  refusal(useCase, ops, 'expected the use case to refuse');

const body = (e: SvcError) => ({ ...e.toBody(), kind: e.kind });

describe('task use cases in core (sans I/O, in-memory operations)', () => {
  describe('taskCreation', () => {
    it('inserts the task and then its agents', () => {
      const ops = new MemoryTasks(task('root'));
      runSync(taskCreation(task('child', { parentId: 'root', rootId: 'root', actors: ['b', 'a'] })), ops);
      expect(ops.calls).toEqual(['task root', 'insert child', 'addActors child b,a']);
      expect(ops.rows.get('child')).toMatchObject({ rootId: 'root', actors: ['a', 'b'] });
    });

    it('asks for no agents when there are none, and reads no parent for a root', () => {
      const ops = new MemoryTasks();
      runSync(taskCreation(task('solo')), ops);
      expect(ops.calls).toEqual(['insert solo']);
    });

    it('refuses a parent that does not exist, or is closed', () => {
      const ops = new MemoryTasks(task('old', { status: 'closed', closedAt: AT }));
      expect(body(refused(taskCreation(task('c', { parentId: 'ghost' })), ops))).toEqual({
        kind: 'not_found',
        code: 'not_found',
        reason: 'parent task ghost does not exist in tenant acme',
        remedy: 'see `svc task list --tenant acme`',
      });
      expect(body(refused(taskCreation(task('c', { parentId: 'old' })), ops))).toEqual({
        kind: 'conflict',
        code: 'conflict',
        reason: `parent task old is closed (since ${AT})`,
        remedy: 'a closed task is final: create a new task',
      });
      expect(ops.calls.filter((c) => c.startsWith('insert'))).toEqual([]);
    });

    it('fails with a coded conflict when the parent closed between the read and the insert', () => {
      const ops = new MemoryTasks(task('root'));
      const raced = racing(ops, 'insert', (rows) => Object.assign(rows.get('root')!, { status: 'closed' }));
      expect(body(refused(taskCreation(task('child', { parentId: 'root', actors: ['a'] })), raced))).toEqual({
        kind: 'conflict',
        code: 'conflict',
        reason:
          'the insert of task child changed 0 rows, not one: the state it was decided on no longer holds; retry',
      });
      expect(ops.rows.has('child')).toBe(false);
      expect(ops.calls).toEqual(['task root', 'insert child']);
    });
  });

  describe('taskClose', () => {
    it('closes an open task (draft or active) and answers it closed', () => {
      for (const status of ['draft', 'active'] as const) {
        const ops = new MemoryTasks(task('t', { status, actors: ['a'] }));
        const closed = runSync(taskClose('acme', 't', LATER), ops);
        expect(closed).toEqual(task('t', { status: 'closed', closedAt: LATER, actors: ['a'] }));
        expect(ops.rows.get('t')).toEqual(closed);
      }
    });

    it('refuses an unknown task, and a closed one: closing is final', () => {
      const ops = new MemoryTasks(task('done', { status: 'closed', closedAt: AT }));
      expect(body(refused(taskClose('acme', 'ghost', LATER), ops))).toEqual({
        kind: 'not_found',
        code: 'not_found',
        reason: 'task ghost does not exist in tenant acme',
        remedy: 'see `svc task list --tenant acme`',
      });
      expect(body(refused(taskClose('acme', 'done', LATER), ops))).toEqual({
        kind: 'conflict',
        code: 'conflict',
        reason: `task done is closed (since ${AT})`,
        remedy: 'a closed task is final: create a new task',
      });
      expect(ops.rows.get('done')?.closedAt).toBe(AT);
    });

    it('fails with a coded conflict when the task changed between the read and the close', () => {
      const ops = new MemoryTasks(task('t', { status: 'draft' }));
      const raced = racing(ops, 'close', (rows) => Object.assign(rows.get('t')!, { status: 'active' }));
      expect(refused(taskClose('acme', 't', LATER), raced)).toMatchObject({
        code: 'conflict',
        reason:
          'the close of task t changed 0 rows, not one: the state it was decided on no longer holds; retry',
      });
      expect(ops.rows.get('t')?.status).toBe('active');
    });
  });

  describe('budgetChange', () => {
    it('sets a budget at or above what is reserved, lower or higher than before', () => {
      const ops = new MemoryTasks(task('t', { budgetMicros: 9_000_000n, reservedMicros: 5_000_000n }));
      expect(runSync(budgetChange('acme', 't', 5_000_000n), ops).budgetMicros).toBe(5_000_000n);
      expect(runSync(budgetChange('acme', 't', 2n ** 62n), ops)).toEqual(
        task('t', { budgetMicros: 2n ** 62n, reservedMicros: 5_000_000n }),
      );
      expect(ops.rows.get('t')?.budgetMicros).toBe(2n ** 62n);
    });

    it('refuses a budget below what is reserved, naming the amount', () => {
      const ops = new MemoryTasks(task('t', { reservedMicros: 5_000_000n }));
      expect(body(refused(budgetChange('acme', 't', 4_999_999n), ops))).toEqual({
        kind: 'conflict',
        code: 'conflict',
        reason: 'task t already has 5 USD reserved; its budget cannot be set below that',
        field: 'set',
        remedy: 'set a budget of at least 5 USD',
      });
      expect(ops.calls).toEqual(['task t']);
    });

    it('refuses an unknown task and a closed one before the amount', () => {
      const ops = new MemoryTasks(task('done', { status: 'closed', closedAt: AT, reservedMicros: 9n }));
      expect(refused(budgetChange('acme', 'ghost', 1n), ops)).toMatchObject({ code: 'not_found' });
      expect(refused(budgetChange('acme', 'done', 1n), ops)).toMatchObject({
        code: 'conflict',
        reason: `task done is closed (since ${AT})`,
      });
    });

    it('fails with a coded conflict when a reservation lands between the read and the write', () => {
      const ops = new MemoryTasks(task('t', { reservedMicros: 1_000_000n }));
      const raced = racing(ops, 'setBudget', (rows) =>
        Object.assign(rows.get('t')!, { reservedMicros: 3_000_000n }),
      );
      expect(body(refused(budgetChange('acme', 't', 2_000_000n), raced))).toEqual({
        kind: 'conflict',
        code: 'conflict',
        reason:
          'the budget of task t changed 0 rows, not one: the state it was decided on no longer holds; retry',
      });
      expect(ops.rows.get('t')?.budgetMicros).toBe(10_000_000n);
    });

    it('fails with a coded conflict when the task closed between the read and the write', () => {
      const ops = new MemoryTasks(task('t'));
      const raced = racing(ops, 'setBudget', (rows) => Object.assign(rows.get('t')!, { status: 'closed' }));
      expect(refused(budgetChange('acme', 't', 1n), raced)).toMatchObject({ code: 'conflict' });
      expect(ops.rows.get('t')?.budgetMicros).toBe(10_000_000n);
    });
  });

  describe('taskAssignment', () => {
    it('adds agents idempotently and answers the task with every agent, sorted', () => {
      const ops = new MemoryTasks(task('t', { actors: ['m'] }));
      expect(runSync(taskAssignment('acme', 't', ['z', 'a', 'm', 'a']), ops).actors).toEqual(['a', 'm', 'z']);
      expect(ops.rows.get('t')?.actors).toEqual(['a', 'm', 'z']);
    });

    it('refuses an unknown task and a closed one', () => {
      const ops = new MemoryTasks(task('done', { status: 'closed', closedAt: null }));
      expect(refused(taskAssignment('acme', 'ghost', ['a']), ops)).toMatchObject({ code: 'not_found' });
      expect(body(refused(taskAssignment('acme', 'done', ['a']), ops))).toMatchObject({
        code: 'conflict',
        reason: 'task done is closed (since unknown)',
      });
      expect(ops.calls).toEqual(['task ghost', 'task done']);
    });
  });

  it('checkBudgetCovers: the rule svc apply plans with is the one the store applies', () => {
    expect(() => checkBudgetCovers({ id: 't', reservedMicros: 1n }, 1n)).not.toThrow();
    expect(() => checkBudgetCovers({ id: 't', reservedMicros: 1n }, 0n)).toThrow(
      'task t already has 0.000001 USD reserved; its budget cannot be set below that',
    );
  });
});
