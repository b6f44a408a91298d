import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { describe, get } from '../api.js';
import { Id, Loading, usd, When } from './common.js';
import { RecordDetail, type Receipt } from './record-detail.js';
import { KINDS, kindLabel, OUTCOMES, tone, words } from './record-words.js';

interface Page {
  items: Receipt[];
  next_cursor: string | null;
  scanned: number;
}

const FIELDS = [
  'q',
  'kind',
  'outcome',
  'code',
  'capability',
  'task_id',
  'actor_id',
  'since',
  'until',
] as const;
type Filter = Partial<Record<(typeof FIELDS)[number], string>>;

/** `#/records/<query>`: the filter a link (the overview, a record's task) opens the page with. */
function filterFromHash(): Filter {
  const m = /^#\/records\/(.*)$/.exec(location.hash);
  const q = new URLSearchParams(m?.[1] ?? '');
  const f: Filter = {};
  for (const k of FIELDS) {
    const v = q.get(k);
    if (v) f[k] = v;
  }
  return f;
}

const query = (f: Filter) => {
  const q = new URLSearchParams();
  for (const k of FIELDS) if (f[k]?.trim()) q.set(k, f[k]!.trim());
  return q;
};

/** A `datetime-local` value (local time) as RFC 3339, and back. */
const toIso = (local: string) => (local ? new Date(local).toISOString() : '');
const toLocal = (iso: string | undefined) => {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

function Field({ id, label, children }: { id: string; label: string; children: ComponentChildren }) {
  return (
    <label class="field" for={id}>
      <span>{label}</span>
      {children}
    </label>
  );
}

/**
 * The journal newest first: kind, intent and outcome at a glance, filters and a search, a
 * page at a time (Older follows the cursor the server returns), and each record in words.
 */
export function RecordsPage() {
  const [filter, setFilter] = useState<Filter>(filterFromHash());
  const [draft, setDraft] = useState<Filter>(filter);
  // cursors of the pages before this one; the last is this page's own (null: the newest)
  const [trail, setTrail] = useState<(string | null)[]>([null]);
  const [page, setPage] = useState<Page | undefined>(undefined);
  const [error, setError] = useState('');
  const [detail, setDetail] = useState<Receipt | null>(null);
  const cursor = trail[trail.length - 1] ?? null;

  useEffect(() => {
    const on = () => {
      const f = filterFromHash();
      setFilter(f);
      setDraft(f);
      setTrail([null]);
    };
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  useEffect(() => {
    let live = true;
    const q = query(filter);
    if (cursor) q.set('cursor', cursor);
    q.set('limit', '50');
    get<Page>(`/api/records?${q.toString()}`).then(
      (p) => {
        if (!live) return;
        setPage(p);
        setError('');
      },
      (err) => live && setError(describe(err)),
    );
    return () => {
      live = false;
    };
  }, [filter, cursor]);

  const apply = (f: Filter) => {
    history.replaceState(null, '', `#/records/${query(f).toString()}`);
    setFilter(f);
    setDraft(f);
    setTrail([null]);
  };
  const set = (k: keyof Filter) => (e: Event) =>
    setDraft({ ...draft, [k]: (e.target as HTMLInputElement | HTMLSelectElement).value });

  return (
    <section>
      <h2>Records</h2>
      <p class="muted">
        Every sealed journal record the signed-in reader may read, newest first. Open one for its facts in
        words, links to its task, approval and actor, and its proof.
      </p>
      <form
        class="filters records-filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          apply(draft);
        }}
      >
        <Field id="records-q" label="Search">
          <input
            id="records-q"
            type="search"
            placeholder="intent, actor, capability or id"
            value={draft.q ?? ''}
            onInput={set('q')}
          />
        </Field>
        <Field id="records-kind" label="Kind">
          <select id="records-kind" value={draft.kind ?? ''} onChange={set('kind')}>
            <option value="">any kind</option>
            {KINDS.map(([k, label]) => (
              <option key={k} value={k}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        <Field id="records-outcome" label="Outcome">
          <select id="records-outcome" value={draft.outcome ?? ''} onChange={set('outcome')}>
            <option value="">any outcome</option>
            {OUTCOMES.map((o) => (
              <option key={o} value={o}>
                {words(o)}
              </option>
            ))}
          </select>
        </Field>
        <Field id="records-capability" label="Capability">
          <input id="records-capability" value={draft.capability ?? ''} onInput={set('capability')} />
        </Field>
        <Field id="records-task" label="Task">
          <input id="records-task" value={draft.task_id ?? ''} onInput={set('task_id')} />
        </Field>
        <Field id="records-actor" label="Actor">
          <input id="records-actor" value={draft.actor_id ?? ''} onInput={set('actor_id')} />
        </Field>
        <Field id="records-since" label="From">
          <input
            id="records-since"
            type="datetime-local"
            value={toLocal(draft.since)}
            onInput={(e) => setDraft({ ...draft, since: toIso((e.target as HTMLInputElement).value) })}
          />
        </Field>
        <Field id="records-until" label="To">
          <input
            id="records-until"
            type="datetime-local"
            value={toLocal(draft.until)}
            onInput={(e) => setDraft({ ...draft, until: toIso((e.target as HTMLInputElement).value) })}
          />
        </Field>
        <div class="row">
          <button type="submit" class="primary">
            Filter
          </button>
          <button type="button" onClick={() => apply({})}>
            Clear
          </button>
        </div>
      </form>
      {filter.code && (
        <p class="muted">
          Refusal code <code>{filter.code}</code> only.
        </p>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {!page ? (
        <Loading />
      ) : page.items.length === 0 ? (
        <p class="empty">
          {Object.keys(filter).length > 0
            ? `No record matches among the ${page.scanned} records examined${page.next_cursor ? ': Older looks further back' : ''}. Clear the filters to see everything.`
            : 'The journal is empty: a decision appears here as soon as an agent asks for one (svc quickstart prints one to try).'}
        </p>
      ) : (
        <div class="table-wrap">
          <table class="records">
            <thead>
              <tr>
                <th>#</th>
                <th>When</th>
                <th>Kind</th>
                <th>Intent</th>
                <th>Capability</th>
                <th>Actor</th>
                <th>Task</th>
                <th>Outcome</th>
                <th>Amount</th>
              </tr>
            </thead>
            <tbody>
              {page.items.map((r) => (
                <tr key={r.receipt_id}>
                  <td class="num">
                    <button
                      type="button"
                      class="link"
                      onClick={() => setDetail(r)}
                      aria-label={`open record ${r.sequence}`}
                    >
                      {r.sequence}
                    </button>
                  </td>
                  <td class="when">
                    <When iso={r.occurred_at} />
                  </td>
                  <td class="kind">{kindLabel(r.kind)}</td>
                  <td class="intent">
                    {r.intent ?? (
                      <span class="muted">{r.action ? `${r.action} ${r.capability}` : 'none'}</span>
                    )}
                  </td>
                  <td>{r.capability}</td>
                  <td>
                    <Id value={r.actor_id} label="actor" />
                  </td>
                  <td>
                    {r.task_id ? <Id value={r.task_id} label="task" /> : <span class="muted">none</span>}
                  </td>
                  <td>
                    <span class={`pill ${tone(r.outcome)}`} title={r.code ?? undefined}>
                      {words(r.outcome)}
                    </span>
                    {r.code && <span class="muted code-note"> {r.code}</span>}
                  </td>
                  <td class="num">{usd(r.amount_usd)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {page && (
        <div class="row pager">
          <button type="button" disabled={trail.length === 1} onClick={() => setTrail([null])}>
            Newest
          </button>
          <button
            type="button"
            disabled={!page.next_cursor}
            onClick={() => page.next_cursor && setTrail([...trail, page.next_cursor])}
          >
            Older
          </button>
          <span class="muted">
            {page.items.length} shown; {page.scanned} records examined
            {page.next_cursor ? `, older from #${page.next_cursor} down` : ', back to the first'}
          </span>
        </div>
      )}
      {detail && <RecordDetail r={detail} onClose={() => setDetail(null)} />}
    </section>
  );
}
