import { useEffect, useState } from 'preact/hooks';
import { describe, get, post, type Session } from '../api.js';
import { Loading, usd, when } from './common.js';

interface Approval {
  approval_id: string;
  status: string;
  intent_id: string;
  task_id: string;
  effect_key_step: string;
  capability: string;
  action: string;
  intent: string | null;
  requester_id: string;
  amount_usd: number;
  request_digest: string;
  expires_at: string;
  created_at: string;
}

const POLL_MS = 3000;

/** Pending approvals, refreshed every few seconds so new ones appear without a reload. */
export function ApprovalsPage({ session }: { session: Session }) {
  const [items, setItems] = useState<Approval[] | undefined>(undefined);
  const [error, setError] = useState('');
  const [confirming, setConfirming] = useState<{ a: Approval; decision: 'approve' | 'deny' } | null>(null);
  const [note, setNote] = useState('');
  const [message, setMessage] = useState('');
  const refresh = () =>
    get<{ items: Approval[] }>('/api/approvals?status=pending').then(
      (r) => {
        setItems(r.items);
        setError('');
      },
      (err) => setError(describe(err)),
    );
  useEffect(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), POLL_MS);
    return () => clearInterval(timer);
  }, []);

  const decide = async () => {
    if (!confirming) return;
    const { a, decision } = confirming;
    try {
      await post(`/api/approvals/${encodeURIComponent(a.approval_id)}/decision`, {
        decision,
        ...(note ? { note } : {}),
      });
      setMessage(
        `${decision === 'approve' ? 'Approved' : 'Denied'} ${a.capability} for ${a.requester_id} (${a.approval_id}).`,
      );
    } catch (err) {
      setMessage(describe(err));
    }
    setConfirming(null);
    setNote('');
    void refresh();
  };

  if (items === undefined) return <Loading error={error} />;
  const approver = session.roles.includes('approver');
  return (
    <section>
      <h2>Approvals</h2>
      <p class="muted">
        Pending approvals of irreversible actions, exactly as they would run. New ones appear within{' '}
        {POLL_MS / 1000} seconds.
        {!approver && ' You do not hold the approver role: only the capability’s named approvers may decide.'}
      </p>
      {message && (
        <p class="notice" role="status">
          {message}
        </p>
      )}
      {error && <p class="error">{error}</p>}
      {items.length === 0 ? (
        <p class="empty">No pending approvals.</p>
      ) : (
        <table class="approvals">
          <thead>
            <tr>
              <th>Capability</th>
              <th>Amount</th>
              <th>Task</th>
              <th>Asked by</th>
              <th>Request digest</th>
              <th>Expires</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {items.map((a) => (
              <tr key={a.approval_id} data-approval={a.approval_id}>
                <td>
                  <strong>{a.capability}</strong> <span class="dim">{a.action}</span>
                  {a.intent && <div class="muted">{a.intent}</div>}
                </td>
                <td class="num">{usd(a.amount_usd)}</td>
                <td>
                  {a.task_id} <span class="dim">step {a.effect_key_step}</span>
                </td>
                <td>{a.requester_id}</td>
                <td>
                  <code title={a.request_digest}>{a.request_digest.slice(0, 16)}…</code>
                </td>
                <td>{when(a.expires_at)}</td>
                <td class="actions">
                  <button class="approve" onClick={() => setConfirming({ a, decision: 'approve' })}>
                    Approve
                  </button>
                  <button class="deny" onClick={() => setConfirming({ a, decision: 'deny' })}>
                    Deny
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {confirming && (
        <div class="modal" role="dialog" aria-modal="true" aria-labelledby="confirm-title">
          <div class="card">
            <h3 id="confirm-title">
              {confirming.decision === 'approve' ? 'Approve' : 'Deny'} {confirming.a.capability}?
            </h3>
            <dl class="facts">
              <dt>Amount</dt>
              <dd>{usd(confirming.a.amount_usd)}</dd>
              <dt>Task</dt>
              <dd>{confirming.a.task_id}</dd>
              <dt>Asked by</dt>
              <dd>{confirming.a.requester_id}</dd>
              <dt>Request digest</dt>
              <dd>
                <code>{confirming.a.request_digest}</code>
              </dd>
            </dl>
            <label>
              Note (journaled)
              <input
                value={note}
                onInput={(e) => setNote((e.target as HTMLInputElement).value)}
                maxLength={1000}
              />
            </label>
            <div class="row">
              <button
                id="confirm-decision"
                class={confirming.decision === 'approve' ? 'primary' : 'danger'}
                onClick={decide}
              >
                Confirm {confirming.decision}
              </button>
              <button onClick={() => setConfirming(null)}>Cancel</button>
            </div>
          </div>
        </div>
      )}
    </section>
  );
}
