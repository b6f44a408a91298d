import { useState } from 'preact/hooks';
import type { Session } from '../api.js';
import { BudgetChart } from '../chart.js';
import { EmptyState, Id, Loading, useJson, usd } from './common.js';
import { TaskActions } from './task-admin.js';

interface TaskRow {
  task_id: string;
  title: string | null;
  status: string;
  budget_usd: number;
  reserved_usd: number;
  remaining_usd: number;
}

/** Per-task budget, reserved and remaining, with a chart. */
export function SpendPage({ session }: { session?: Session }) {
  const { data, error, reload } = useJson<{ items: TaskRow[] }>('/api/spend');
  const [changed, setChanged] = useState('');
  const admin = session?.roles.includes('administrator') === true;
  if (!data) return <Loading error={error} />;
  return (
    <section>
      <h2>Spend</h2>
      <p class="muted">
        Reserved is what allowed decisions committed at admission (an estimate, not a settled charge).
      </p>
      {changed && (
        <p class="notice" role="status" id="task-changed">
          {changed}
        </p>
      )}
      {data.items.length === 0 ? (
        <EmptyState
          lead="No tasks yet, so nothing has a budget to spend."
          next={
            <>
              Agents act within a task. Create one with a budget on the deployment’s machine:{' '}
              <code>svc task create --tenant &lt;tenant&gt; --sponsor &lt;you&gt; --budget-usd 50</code>; its
              spend appears here as agents are allowed to act in it.
            </>
          }
        />
      ) : (
        <>
          <BudgetChart
            bars={data.items.map((t) => ({
              label: t.task_id,
              budget: t.budget_usd,
              reserved: t.reserved_usd,
            }))}
          />
          <p class="legend">
            <span class="swatch reserved" /> reserved <span class="swatch remaining" /> remaining
          </p>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Task</th>
                  <th>Status</th>
                  <th>Budget</th>
                  <th>Reserved</th>
                  <th>Remaining</th>
                  {admin && <th>Change</th>}
                </tr>
              </thead>
              <tbody>
                {data.items.map((t) => (
                  <tr key={t.task_id}>
                    <td>
                      <Id value={t.task_id} label="task id" /> {t.title && <span class="dim">{t.title}</span>}
                    </td>
                    <td>{t.status}</td>
                    <td class="num">{usd(t.budget_usd)}</td>
                    <td class="num">{usd(t.reserved_usd)}</td>
                    <td class="num">{usd(t.remaining_usd)}</td>
                    {admin && (
                      <td class="actions">
                        <TaskActions
                          task={t}
                          onChanged={(m) => {
                            setChanged(m);
                            reload();
                          }}
                        />
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
