import { useEffect, useState } from 'preact/hooks';
import { describe, get, type Session } from '../api.js';
import { Loading, short, When } from './common.js';
import { PolicyChanges } from './policy-changes.js';
import { PolicyEditor } from './policy-editor.js';

interface Version {
  version: number;
  sha256: string;
  set_by: string;
  set_at: string;
  message: string | null;
  current: boolean;
}

interface VersionText extends Version {
  text: string;
}

interface Page {
  items: Version[];
  next_cursor: string | null;
}

interface Diff {
  from: Version;
  to: Version;
  diff: string;
}

const PAGE_SIZE = 20;

/** A diff line's kind, for its colour: the file lines, a hunk's range, added, removed, context. */
function lineClass(line: string): string {
  if (line.startsWith('--- ') || line.startsWith('+++ ')) return 'file';
  if (line.startsWith('@@')) return 'hunk';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'del';
  return 'ctx';
}

function VersionCard({ v, onCurrent }: { v: VersionText; onCurrent?: () => void }) {
  return (
    <div class="card" id="policy-version" data-version={v.version}>
      <h3>
        Version {v.version}{' '}
        {v.current ? <span class="pill ok">current</span> : <span class="pill warn">not current</span>}
      </h3>
      <dl class="facts">
        <dt>Set</dt>
        <dd>
          <When iso={v.set_at} />
        </dd>
        <dt>By</dt>
        <dd>{v.set_by}</dd>
        <dt>Message</dt>
        <dd>{v.message ?? <span class="dim">–</span>}</dd>
        <dt>SHA-256</dt>
        <dd>
          <code>{v.sha256}</code>
        </dd>
      </dl>
      {/* a long line scrolls inside the block: focusable, so a keyboard can scroll it too */}
      <pre class="code" tabIndex={0} aria-label={`Policy version ${v.version}`}>
        {v.text}
      </pre>
      {onCurrent && (
        <button id="show-current" onClick={onCurrent}>
          Back to the current version
        </button>
      )}
    </div>
  );
}

/** The diff as lines, each coloured by its kind; empty text says the two are the same. */
function DiffView({ d }: { d: Diff }) {
  if (d.diff === '') {
    return (
      <p class="empty" id="policy-diff-same">
        Versions {d.from.version} and {d.to.version} have the same text.
      </p>
    );
  }
  const lines = d.diff.endsWith('\n') ? d.diff.slice(0, -1).split('\n') : d.diff.split('\n');
  return (
    <pre class="code diff" id="policy-diff" tabIndex={0} aria-label="Diff">
      {lines.map((line, i) => (
        <span key={i} class={lineClass(line)}>
          {line}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}

/**
 * The tenant's policy, read-only: the version the daemon decides with, every stored version
 * (who set it, why, its hash), any version's text, and a diff between any two.
 * Changes are made with the CLI on the deployment's machine (svc policy set / rollback); the
 * shadow report and a replay show what one would change before it is made.
 */
export function PoliciesPage({ session }: { session: Session }) {
  const [trail, setTrail] = useState<(string | null)[]>([null]);
  const [page, setPage] = useState<Page | undefined>(undefined);
  const [error, setError] = useState('');
  const [current, setCurrent] = useState<VersionText | null | undefined>(undefined);
  const [shown, setShown] = useState<VersionText | undefined>(undefined);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [diff, setDiff] = useState<Diff | undefined>(undefined);
  const [diffError, setDiffError] = useState('');
  // A change made on this page reloads what it changed: the version, the history, the shadow.
  const [tick, setTick] = useState(0);
  const [changed, setChanged] = useState('');
  const onChanged = (m: string) => {
    setChanged(m);
    setShown(undefined);
    setTick((t) => t + 1);
  };
  const admin = session.roles.includes('administrator');
  const cursor = trail[trail.length - 1] ?? null;

  useEffect(() => {
    const q = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (cursor !== null) q.set('cursor', cursor);
    let live = true;
    get<Page>(`/api/policies/history?${q.toString()}`).then(
      (r) => {
        if (!live) return;
        setPage(r);
        setError('');
      },
      (err) => live && setError(describe(err)),
    );
    return () => {
      live = false;
    };
  }, [cursor, tick]);

  // The current version's text, and a first comparison: the version before it against it.
  useEffect(() => {
    let live = true;
    // One chain with one handler: a failure of the second read (a session that ended, a page
    // left mid-request) is shown, never an unhandled rejection.
    get<{ policy: { version: number } | null }>('/api/policies')
      .then(async ({ policy }) => {
        if (!live) return;
        if (policy === null) {
          setCurrent(null);
          return;
        }
        const v = await get<VersionText>(`/api/policies/versions/${policy.version}`);
        if (!live) return;
        setCurrent(v);
        setTo(String(v.version));
        setFrom(String(Math.max(1, v.version - 1)));
      })
      .catch((err: unknown) => live && setError(describe(err)));
    return () => {
      live = false;
    };
  }, [tick]);

  const view = async (version: number) => {
    try {
      setShown(await get<VersionText>(`/api/policies/versions/${version}`));
      setError('');
    } catch (err) {
      setError(describe(err));
    }
  };

  const compare = async (e: Event) => {
    e.preventDefault();
    const q = new URLSearchParams({ from: from.trim(), to: to.trim() });
    try {
      setDiff(await get<Diff>(`/api/policies/diff?${q.toString()}`));
      setDiffError('');
    } catch (err) {
      setDiff(undefined);
      setDiffError(describe(err));
    }
  };

  if (current === undefined || page === undefined) {
    return (
      <section>
        <h2>Policies</h2>
        <Loading error={error} />
      </section>
    );
  }
  if (current === null) {
    return (
      <section>
        <h2>Policies</h2>
        <p class="empty" id="no-policy">
          No policy set is installed: every decision is refused. Write one below and install it, or use{' '}
          <code>svc policy set</code>.
        </p>
        {changed && (
          <p class="notice" role="status" id="policy-changed">
            {changed}
          </p>
        )}
        <h3>Edit</h3>
        <PolicyEditor initial="" admin={admin} onChanged={onChanged} />
        <PolicyChanges session={session} tick={tick} onChanged={onChanged} />
      </section>
    );
  }
  return (
    <section>
      <h2>Policies</h2>
      <p class="muted">
        The tenant’s Cedar policy set and every version it had. Edit it below (administrators), or on the
        deployment’s machine with <code>svc policy set --message …</code>; go back with{' '}
        <code>svc policy rollback --to VERSION</code>.
      </p>
      {changed && (
        <p class="notice" role="status" id="policy-changed">
          {changed}
        </p>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {shown && shown.version !== current.version ? (
        <VersionCard v={shown} onCurrent={() => setShown(undefined)} />
      ) : (
        <VersionCard v={current} />
      )}

      <h3>History</h3>
      <div class="table-wrap">
        <table id="policy-history">
          <thead>
            <tr>
              <th>Version</th>
              <th>Set</th>
              <th>By</th>
              <th>Message</th>
              <th>SHA-256</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {page.items.map((v) => (
              <tr key={v.version} data-version={v.version}>
                <td class="num">
                  {v.version} {v.current && <span class="pill ok">current</span>}
                </td>
                <td>
                  <When iso={v.set_at} />
                </td>
                <td>{v.set_by}</td>
                <td>{v.message ?? <span class="dim">–</span>}</td>
                <td>
                  <code title={v.sha256}>{short(v.sha256)}</code>
                </td>
                <td class="actions">
                  <button onClick={() => void view(v.version)}>View</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div class="row pager">
        <button disabled={trail.length === 1} onClick={() => setTrail(trail.slice(0, -1))}>
          ← Newer
        </button>
        <span class="muted">page {trail.length}</span>
        <button
          disabled={page.next_cursor === null}
          onClick={() => page.next_cursor !== null && setTrail([...trail, page.next_cursor])}
        >
          Older →
        </button>
      </div>

      <h3>Compare</h3>
      <form class="filters" id="policy-compare" onSubmit={compare}>
        <label class="inline">
          from version{' '}
          <input
            id="diff-from"
            type="number"
            min={1}
            value={from}
            onInput={(e) => setFrom((e.target as HTMLInputElement).value)}
          />
        </label>
        <label class="inline">
          to version{' '}
          <input
            id="diff-to"
            type="number"
            min={1}
            value={to}
            onInput={(e) => setTo((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit" id="show-diff">
          Show diff
        </button>
      </form>
      {diffError && (
        <p class="error" role="alert" id="policy-diff-error">
          {diffError}
        </p>
      )}
      {diff && <DiffView d={diff} />}

      <h3>Edit</h3>
      <PolicyEditor key={current.version} initial={current.text} admin={admin} onChanged={onChanged} />

      <PolicyChanges session={session} tick={tick} onChanged={onChanged} />
    </section>
  );
}
