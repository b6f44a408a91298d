import { useEffect, useState } from 'preact/hooks';
import { describe, get } from '../api.js';
import { Loading, short, usd, when } from './common.js';

interface Receipt {
  receipt_id: string;
  sequence: number;
  kind: string;
  intent_id: string;
  task_id: string | null;
  actor_id: string;
  capability: string;
  action: string | null;
  intent: string | null;
  outcome: string;
  allowed: boolean;
  code: string | null;
  reason: string | null;
  amount_usd: number;
  occurred_at: string;
  record_hash: string;
  [k: string]: unknown;
}

interface Page {
  items: Receipt[];
  next_cursor: string | null;
}

const FIELDS = ['task_id', 'capability', 'outcome', 'since', 'until'] as const;

/** Receipts with filters, and a detail view of the sealed fields. */
export function RecordsPage() {
  const [filter, setFilter] = useState<Record<string, string>>({});
  const [page, setPage] = useState<Page | undefined>(undefined);
  const [error, setError] = useState('');
  const [detail, setDetail] = useState<Receipt | null>(null);

  const load = async (cursor?: string) => {
    const q = new URLSearchParams();
    for (const f of FIELDS) {
      const v = filter[f]?.trim();
      if (!v) continue;
      q.set(f, f === 'since' || f === 'until' ? new Date(v).toISOString() : v);
    }
    if (cursor) q.set('cursor', cursor);
    try {
      const r = await get<Page>(`/api/records?${q.toString()}`);
      setPage(cursor && page ? { items: [...page.items, ...r.items], next_cursor: r.next_cursor } : r);
      setError('');
    } catch (err) {
      setError(describe(err));
    }
  };
  useEffect(() => void load(), []);

  return (
    <section>
      <h2>Records</h2>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          void load();
        }}
      >
        <input
          placeholder="task id"
          value={filter.task_id ?? ''}
          onInput={(e) => setFilter({ ...filter, task_id: (e.target as HTMLInputElement).value })}
        />
        <input
          placeholder="capability"
          value={filter.capability ?? ''}
          onInput={(e) => setFilter({ ...filter, capability: (e.target as HTMLInputElement).value })}
        />
        <select
          aria-label="outcome"
          value={filter.outcome ?? ''}
          onChange={(e) => setFilter({ ...filter, outcome: (e.target as HTMLSelectElement).value })}
        >
          <option value="">any outcome</option>
          <option value="allowed">allowed</option>
          <option value="refused">refused</option>
          <option value="deferred">deferred</option>
          <option value="redacted">redacted</option>
        </select>
        <label class="inline">
          from{' '}
          <input
            type="datetime-local"
            value={filter.since ?? ''}
            onInput={(e) => setFilter({ ...filter, since: (e.target as HTMLInputElement).value })}
          />
        </label>
        <label class="inline">
          to{' '}
          <input
            type="datetime-local"
            value={filter.until ?? ''}
            onInput={(e) => setFilter({ ...filter, until: (e.target as HTMLInputElement).value })}
          />
        </label>
        <button type="submit">Filter</button>
      </form>
      {error && <p class="error">{error}</p>}
      {!page ? (
        <Loading />
      ) : page.items.length === 0 ? (
        <p class="empty">No receipts match.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>#</th>
              <th>When</th>
              <th>Capability</th>
              <th>Actor</th>
              <th>Task</th>
              <th>Outcome</th>
              <th>Amount</th>
              <th>Record hash</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((r) => (
              <tr key={r.receipt_id} class="clickable" onClick={() => setDetail(r)}>
                <td class="num">{r.sequence}</td>
                <td>{when(r.occurred_at)}</td>
                <td>{r.capability}</td>
                <td>{r.actor_id}</td>
                <td>{r.task_id ?? '–'}</td>
                <td>
                  <span class={`pill ${r.allowed ? 'ok' : r.outcome === 'deferred' ? 'warn' : 'bad'}`}>
                    {r.outcome}
                  </span>
                </td>
                <td class="num">{usd(r.amount_usd)}</td>
                <td>
                  <code>{short(r.record_hash)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {page?.next_cursor && (
        <button onClick={() => void load(page.next_cursor ?? undefined)}>Load more</button>
      )}
      {detail && (
        <div class="modal" role="dialog" aria-modal="true">
          <div class="card wide">
            <h3>Receipt {detail.receipt_id}</h3>
            <dl class="facts">
              {Object.entries(detail).map(([k, v]) => (
                <>
                  <dt key={`k-${k}`}>{k}</dt>
                  <dd key={`v-${k}`}>
                    <code>{v === null ? 'null' : typeof v === 'object' ? JSON.stringify(v) : String(v)}</code>
                  </dd>
                </>
              ))}
            </dl>
            <button onClick={() => setDetail(null)}>Close</button>
          </div>
        </div>
      )}
    </section>
  );
}
