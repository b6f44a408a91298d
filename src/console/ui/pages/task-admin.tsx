import { useState } from 'preact/hooks';
import { post } from '../api.js';
import { Confirm, FieldError, formError, type FormError } from './admin-form.js';
import { Id, usd } from './common.js';

export interface AdminTask {
  task_id: string;
  status: string;
  budget_usd: number;
  reserved_usd: number;
}

interface Changed {
  task_id: string;
  budget_usd: number;
  reserved_usd: number;
  previous_budget_usd?: number;
  status: string;
}

/**
 * An administrator's changes to one task, in its row of the Spend page: a new budget (never
 * below what is reserved: the server says so, beside the field) and closing it, which is
 * final and so asked again first. The server checks the role and the rules again.
 */
export function TaskActions({ task, onChanged }: { task: AdminTask; onChanged: (message: string) => void }) {
  const [budget, setBudget] = useState('');
  const [error, setError] = useState<FormError | undefined>(undefined);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const url = `/api/tasks/${encodeURIComponent(task.task_id)}`;

  if (task.status === 'closed') return <span class="dim">closed: final</span>;

  const send = async (what: 'budget' | 'close') => {
    setBusy(true);
    try {
      if (what === 'budget') {
        const t = await post<Changed>(`${url}/budget`, { budget_usd: budget.trim() });
        onChanged(
          `Task ${t.task_id}: budget ${usd(t.previous_budget_usd ?? 0)} → ${usd(t.budget_usd)} (${usd(t.reserved_usd)} reserved).`,
        );
        setBudget('');
      } else {
        const t = await post<Changed>(`${url}/close`, {});
        onChanged(`Closed task ${t.task_id} (${usd(t.reserved_usd)} of ${usd(t.budget_usd)} reserved).`);
        setConfirming(false);
      }
      setError(undefined);
    } catch (err) {
      setError(formError(err));
      setConfirming(false);
    } finally {
      setBusy(false);
    }
  };

  const inputId = `budget-${task.task_id}`;
  return (
    <div class="task-admin" data-task={task.task_id}>
      <form
        class="task-budget"
        onSubmit={(e) => {
          e.preventDefault();
          void send('budget');
        }}
      >
        <label class="sr-only" for={inputId}>
          New budget in USD for task {task.task_id}
        </label>
        <input
          id={inputId}
          class="budget-input"
          inputMode="decimal"
          placeholder={String(task.budget_usd)}
          value={budget}
          aria-invalid={error?.field === 'budget_usd'}
          onInput={(e) => setBudget((e.target as HTMLInputElement).value)}
        />
        <button type="submit" class="set-budget" disabled={busy || budget.trim() === ''}>
          Set budget
        </button>
        <button type="button" class="close-task danger" disabled={busy} onClick={() => setConfirming(true)}>
          Close…
        </button>
      </form>
      <FieldError error={error} id={`task-error-${task.task_id}`} />
      {confirming && (
        <Confirm
          title="Close this task?"
          action="Close the task"
          busy={busy}
          onConfirm={() => void send('close')}
          onCancel={() => setConfirming(false)}
        >
          <dl class="facts">
            <dt>Task</dt>
            <dd>
              <Id value={task.task_id} label="task" />
            </dd>
            <dt>Budget</dt>
            <dd>{usd(task.budget_usd)}</dd>
            <dt>Reserved</dt>
            <dd>{usd(task.reserved_usd)}</dd>
          </dl>
          <p>
            Closing is final: the task takes no more decisions, budget changes or child tasks. The same as{' '}
            <code>svc task close</code>.
          </p>
        </Confirm>
      )}
    </div>
  );
}
