import { useState } from 'preact/hooks';
import { post } from '../api.js';
import { Confirm } from './admin-form.js';
import { FieldError, formError, type FormError } from './form-error.js';
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
 * An administrator's changes to one task, from its row of the Spend page: one button, so the
 * table stays narrow, opening a dialog with a new budget (never below what is reserved: the
 * server says so beside the field) and closing the task, which is final and asked again. The
 * server checks the role and the rules again.
 */
export function TaskActions({ task, onChanged }: { task: AdminTask; onChanged: (message: string) => void }) {
  const [open, setOpen] = useState(false);
  const [closing, setClosing] = useState(false);
  const [budget, setBudget] = useState('');
  const [error, setError] = useState<FormError | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const url = `/api/tasks/${encodeURIComponent(task.task_id)}`;

  if (task.status === 'closed') return <span class="muted">closed: final</span>;

  const done = (message: string) => {
    setOpen(false);
    setClosing(false);
    setBudget('');
    setError(undefined);
    onChanged(message);
  };
  const send = async (what: 'budget' | 'close') => {
    setBusy(true);
    try {
      if (what === 'budget') {
        const t = await post<Changed>(`${url}/budget`, { budget_usd: budget.trim() });
        done(
          `Task ${t.task_id}: budget ${usd(t.previous_budget_usd ?? 0)} → ${usd(t.budget_usd)} (${usd(t.reserved_usd)} reserved).`,
        );
      } else {
        const t = await post<Changed>(`${url}/close`, {});
        done(`Closed task ${t.task_id} (${usd(t.reserved_usd)} of ${usd(t.budget_usd)} reserved).`);
      }
    } catch (err) {
      setClosing(false);
      setError(formError(err));
    } finally {
      setBusy(false);
    }
  };
  const cancel = () => {
    setOpen(false);
    setClosing(false);
    setError(undefined);
  };

  const facts = (
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
  );
  return (
    <>
      <button class="change-task" aria-label={`Change task ${task.task_id}`} onClick={() => setOpen(true)}>
        Change…
      </button>
      {open && closing && (
        <Confirm
          title="Close this task?"
          action="Close the task"
          busy={busy}
          onConfirm={() => void send('close')}
          onCancel={cancel}
        >
          {facts}
          <p>
            Closing is final: the task takes no more decisions, budget changes or child tasks. The same as{' '}
            <code>svc task close</code>.
          </p>
        </Confirm>
      )}
      {open && !closing && (
        <div class="modal" role="dialog" aria-modal="true" aria-labelledby="task-admin-title">
          <div class="card wide task-admin" data-task={task.task_id}>
            <h3 id="task-admin-title">Change task</h3>
            {facts}
            <form
              onSubmit={(e) => {
                e.preventDefault();
                void send('budget');
              }}
            >
              <label for="task-budget-input">New budget in USD (not below what is reserved)</label>
              <div class="row">
                <input
                  id="task-budget-input"
                  inputMode="decimal"
                  placeholder={String(task.budget_usd)}
                  value={budget}
                  aria-invalid={error?.field === 'budget_usd'}
                  onInput={(e) => setBudget((e.target as HTMLInputElement).value)}
                />
                <button type="submit" id="set-budget" class="primary" disabled={busy || budget.trim() === ''}>
                  Set budget
                </button>
              </div>
              <FieldError error={error} id="task-error" />
            </form>
            <div class="row task-admin-actions">
              <button id="close-task" class="danger" disabled={busy} onClick={() => setClosing(true)}>
                Close the task…
              </button>
              <button id="task-admin-cancel" onClick={cancel}>
                Cancel
              </button>
            </div>
          </div>
        </div>
      )}
    </>
  );
}
