import { useState } from 'preact/hooks';
import { ApiFailure, describe, post, type Session } from '../api.js';
import { Confirm } from './admin-form.js';
import { Id, Loading, useJson, When } from './common.js';
import { FieldError, formError, type FormError } from './form-error.js';

interface Verdict {
  outcome: 'allowed' | 'deferred' | 'refused';
  code: string | null;
  determining: string[];
}

interface Example {
  intent_id: string | null;
  seq: number | null;
  at: string;
  capability: string;
  actor: string;
  action: string;
  amount_usd: number;
  current: Verdict;
  candidate: Verdict;
}

/** The one summary shadow and replay share (cli/difference-render.ts's JSON). */
interface DifferenceReport {
  evaluated: number;
  differing: number;
  to_approval: number;
  by_pair: { pair: string; count: number; examples: Example[] }[];
  by_capability: { capability: string; count: number }[];
  by_actor: { actor: string; count: number }[];
}

interface ShadowReport extends DifferenceReport {
  candidate_id: string;
  source: string;
  set_at: string;
  dropped: number;
  uncompiled: number;
  unreadable: number;
  failure: { message: string; registry_version: number | null } | null;
  validates_now: boolean;
}

interface ReplayReport extends DifferenceReport {
  read: number;
  replayed: number;
  skipped: { unrecorded: number; before_policy: number; unreadable: number };
  policy_versions: number[];
  first_seq: number | null;
  last_seq: number | null;
  partial: boolean;
  stopped_by: 'decisions' | 'time' | null;
  bounds: { decisions: number; busy_ms: number };
}

const decisions = (n: number) => `${n.toLocaleString('en-US')} ${n === 1 ? 'decision' : 'decisions'}`;

/** `refused policy_denied [refund-limit]`, as the CLI prints a verdict. */
const verdict = (v: Verdict) => `${v.outcome}${v.code ? ` ${v.code}` : ''} [${v.determining.join(', ')}]`;

function Counts({ rows, label }: { rows: { key: string; count: number }[]; label: string }) {
  return (
    <div class="table-wrap">
      <table class="by-count" data-by={label}>
        <thead>
          <tr>
            <th>{label}</th>
            <th>count</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.key}>
              <td>{r.key}</td>
              <td class="num">{r.count}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The totals, each outcome pair with its examples, then the counts by capability and by actor. */
function Differences({ r }: { r: DifferenceReport }) {
  return (
    <div class="differences">
      <p class="summary">
        Compared {r.evaluated} {r.evaluated === 1 ? 'decision' : 'decisions'}: <strong>{r.differing}</strong>{' '}
        would change, <strong>{r.to_approval}</strong> would go to approval.
      </p>
      {r.by_pair.map((p) => (
        <div class="pair" key={p.pair} data-pair={p.pair}>
          <h4>
            {p.pair.replace('->', ' → ')}: {p.count}
          </h4>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>At</th>
                  <th>Capability</th>
                  <th>Actor</th>
                  <th>Action</th>
                  <th>Amount (USD)</th>
                  <th>Now</th>
                  <th>Candidate</th>
                </tr>
              </thead>
              <tbody>
                {p.examples.map((e, i) => (
                  <tr key={e.seq ?? i}>
                    <td>
                      <When iso={e.at} />
                    </td>
                    <td>{e.capability}</td>
                    <td>{e.actor}</td>
                    <td>{e.action}</td>
                    <td class="num">{e.amount_usd}</td>
                    <td>
                      <code>{verdict(e.current)}</code>
                    </td>
                    <td>
                      <code>{verdict(e.candidate)}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      ))}
      {r.differing > 0 && (
        <>
          <h4>By capability</h4>
          <Counts
            label="capability"
            rows={r.by_capability.map((c) => ({ key: c.capability, count: c.count }))}
          />
          <h4>By actor</h4>
          <Counts label="actor" rows={r.by_actor.map((a) => ({ key: a.actor, count: a.count }))} />
        </>
      )}
    </div>
  );
}

/**
 * Promote the shadow the card shows (asked again first, naming it, so one replaced since is
 * refused by the server) or clear it: an administrator's.
 */
function ShadowActions({ s, onChanged }: { s: ShadowReport; onChanged: (message: string) => void }) {
  const [confirming, setConfirming] = useState(false);
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<FormError | undefined>(undefined);
  const act = async (what: 'promote' | 'clear') => {
    setBusy(true);
    try {
      if (what === 'promote') {
        const r = await post<{ version: number }>('/api/policies/shadow/promote', {
          candidate_id: s.candidate_id,
          ...(message.trim() !== '' ? { message: message.trim() } : {}),
        });
        onChanged(`Promoted shadow ${s.candidate_id}: it is policy version ${r.version} now.`);
      } else {
        await post('/api/policies/shadow/clear', {});
        onChanged(`Cleared shadow ${s.candidate_id} and its recorded differences.`);
      }
      setError(undefined);
    } catch (err) {
      setError(formError(err));
    } finally {
      setConfirming(false);
      setBusy(false);
    }
  };
  return (
    <div class="shadow-admin">
      <FieldError error={error} id="shadow-error" />
      <div class="row">
        <button
          id="promote-shadow"
          class="danger"
          disabled={busy || !s.validates_now}
          onClick={() => setConfirming(true)}
        >
          Promote…
        </button>
        <button id="clear-shadow" disabled={busy} onClick={() => void act('clear')}>
          Clear the shadow
        </button>
      </div>
      {confirming && (
        <Confirm
          title="Promote the shadow to the policy in force?"
          action="Promote it"
          busy={busy}
          onConfirm={() => void act('promote')}
          onCancel={() => setConfirming(false)}
        >
          <dl class="facts">
            <dt>Candidate</dt>
            <dd>
              <Id value={s.candidate_id} label="shadow policy" />
            </dd>
            <dt>Compared</dt>
            <dd>{s.evaluated} decisions</dd>
            <dt>Would change</dt>
            <dd>
              {s.differing}, of which {s.to_approval} to approval
            </dd>
          </dl>
          <p>
            It becomes the next policy version at once and the shadow is cleared. The same as{' '}
            <code>svc policy shadow promote</code>.
          </p>
          <label for="promote-message">Why (kept in the history)</label>
          <input
            id="promote-message"
            maxLength={500}
            value={message}
            onInput={(e) => setMessage((e.target as HTMLInputElement).value)}
          />
        </Confirm>
      )}
    </div>
  );
}

/** The shadow policy, when one is set: what it is, what was not compared, and where it differs. */
function ShadowCard({
  admin,
  tick,
  onChanged,
}: {
  admin: boolean;
  tick: number;
  onChanged: (message: string) => void;
}) {
  const { data, error } = useJson<{ shadow: ShadowReport | null }>('/api/policies/shadow', [tick]);
  if (!data) return <Loading error={error} />;
  const s = data.shadow;
  if (s === null) {
    return (
      <p class="empty" id="no-shadow">
        No shadow policy is set. {admin ? 'Set the editor’s text as the shadow above, or set one' : 'Set one'}{' '}
        on the deployment’s machine with <code>svc policy shadow set --file candidate.cedar</code>: the daemon
        then compares every decision with it.
      </p>
    );
  }
  const notCompared = [
    s.dropped > 0 ? `${s.dropped} dropped (queue full)` : '',
    s.uncompiled > 0 ? `${s.uncompiled} while it did not compile` : '',
    s.unreadable > 0 ? `${s.unreadable} recorded differences unreadable` : '',
  ].filter((x) => x !== '');
  return (
    <div class="card" id="shadow-report" data-candidate={s.candidate_id}>
      <dl class="facts">
        <dt>Candidate</dt>
        <dd>
          <code>{s.candidate_id}</code> from <code>{s.source}</code>
        </dd>
        <dt>Set</dt>
        <dd>
          <When iso={s.set_at} />
        </dd>
        <dt>Compared</dt>
        <dd>{s.evaluated}</dd>
        <dt>Differing</dt>
        <dd>{s.differing}</dd>
        <dt>Not compared</dt>
        <dd>
          {s.dropped} dropped, {s.uncompiled} uncompiled
        </dd>
      </dl>
      {s.failure !== null && (
        <p class="error" id="shadow-failure">
          It does not compile against the tenant’s registrations (registry version{' '}
          {s.failure.registry_version ?? '?'}): {s.failure.message}
        </p>
      )}
      {s.failure === null && !s.validates_now && (
        <p class="error" id="shadow-stale">
          It no longer validates against the tenant’s registrations: the daemon will count decisions as not
          compared.
        </p>
      )}
      {notCompared.length > 0 && <p class="muted">Not compared: {notCompared.join(', ')}.</p>}
      <Differences r={s} />
      {admin && <ShadowActions s={s} onChanged={onChanged} />}
    </div>
  );
}

/** What a replay's range fields become in its request; empty fields are left out. */
function rangeBody(f: { since: string; from: string; to: string; task: string }): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (f.since.trim() !== '') body.since = f.since.trim();
  if (f.from.trim() !== '') body.from = Number(f.from);
  if (f.to.trim() !== '') body.to = Number(f.to);
  if (f.task.trim() !== '') body.task = f.task.trim();
  return body;
}

/** A pasted candidate put to the recorded decisions on the server, read-only and bounded. */
function ReplayForm() {
  const [candidate, setCandidate] = useState('');
  const [range, setRange] = useState({ since: '', from: '', to: '', task: '' });
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<ReplayReport | undefined>(undefined);
  const [error, setError] = useState<{ text: string; field?: string } | undefined>(undefined);

  const run = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      setResult(await post<ReplayReport>('/api/policies/replay', { candidate, ...rangeBody(range) }));
      setError(undefined);
    } catch (err) {
      setResult(undefined);
      setError({
        text: describe(err),
        ...(err instanceof ApiFailure && err.error.field ? { field: err.error.field } : {}),
      });
    } finally {
      setBusy(false);
    }
  };
  const field = (name: keyof typeof range, label: string, type: 'text' | 'number', placeholder: string) => (
    <label class="inline">
      {label}{' '}
      <input
        id={`replay-${name}`}
        type={type}
        min={type === 'number' ? 1 : undefined}
        placeholder={placeholder}
        value={range[name]}
        onInput={(ev) => setRange({ ...range, [name]: (ev.target as HTMLInputElement).value })}
      />
    </label>
  );

  return (
    <div class="card" id="policy-replay">
      <form onSubmit={run}>
        <label for="replay-candidate">Candidate policy (Cedar, at most 64 KiB)</label>
        <textarea
          id="replay-candidate"
          rows={10}
          spellcheck={false}
          value={candidate}
          onInput={(ev) => setCandidate((ev.target as HTMLTextAreaElement).value)}
        />
        <div class="filters">
          {field('since', 'since', 'text', '7d')}
          {field('from', 'from seq', 'number', '')}
          {field('to', 'to seq', 'number', '')}
          {field('task', 'task', 'text', '')}
          <button type="submit" id="run-replay" disabled={busy || candidate.trim() === ''}>
            {busy ? 'Replaying…' : 'Replay'}
          </button>
        </div>
      </form>
      {error && (
        // A refused candidate's reason is one line per diagnostic, as the CLI prints it.
        <div class="error" role="alert" id="replay-error" data-field={error.field}>
          {error.text.split('\n').map((line, i) => (
            <div key={i}>{line}</div>
          ))}
        </div>
      )}
      {result && (
        <div id="replay-result" data-partial={String(result.partial)}>
          {result.partial && (
            <p class="error" id="replay-partial">
              Partial: the replay stopped at its bound of{' '}
              {result.stopped_by === 'time'
                ? `${result.bounds.busy_ms / 1000} s of work`
                : `${decisions(result.bounds.decisions)} read`}{' '}
              before the end of the range; narrow it, or run <code>svc policy replay</code> on the
              deployment’s machine.
            </p>
          )}
          <p class="muted">
            Read {decisions(result.read)}, replayed {result.replayed}
            {result.first_seq !== null && ` (journal ${result.first_seq} to ${result.last_seq})`}
            {result.policy_versions.length > 0 &&
              `, decided under policy ${result.policy_versions.length === 1 ? 'version' : 'versions'} ${result.policy_versions.join(', ')}`}
            .
            {result.skipped.unrecorded + result.skipped.before_policy + result.skipped.unreadable > 0 &&
              ` Skipped: ${result.skipped.unrecorded} decided before inputs were recorded, ${result.skipped.before_policy} refused before the policy step, ${result.skipped.unreadable} unreadable.`}
          </p>
          <Differences r={result} />
        </div>
      )}
    </div>
  );
}

/**
 * A change before it is made: the shadow policy's report, for every reader of the page, and
 * a replay of a pasted candidate, for administrators (the server checks the role again).
 */
export function PolicyChanges({
  session,
  tick = 0,
  onChanged = () => undefined,
}: {
  session: Session;
  tick?: number;
  onChanged?: (message: string) => void;
}) {
  const admin = session.roles.includes('administrator');
  return (
    <>
      <h3>Shadow policy</h3>
      <ShadowCard admin={admin} tick={tick} onChanged={onChanged} />
      <h3>Replay a candidate</h3>
      {admin ? (
        <>
          <p class="muted">
            Puts the recorded decisions to the candidate with the inputs they were decided with, read-only.
            The console bounds the decisions it reads and the time it spends, and says when a bound stopped
            it; <code>svc policy replay</code> on the deployment’s machine has no bound.
          </p>
          <ReplayForm />
        </>
      ) : (
        <p class="muted" id="replay-admin-only">
          Administrators replay a candidate here, or with <code>svc policy replay</code> on the deployment’s
          machine.
        </p>
      )}
    </>
  );
}
