import { useState } from 'preact/hooks';
import type { Session } from '../api.js';
import { BudgetChart } from '../chart.js';
import { Loading, useJson, usd } from './common.js';
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
        <p class="empty">No tasks.</p>
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
                    {t.task_id} {t.title && <span class="dim">{t.title}</span>}
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
        </>
      )}
    </section>
  );
}
