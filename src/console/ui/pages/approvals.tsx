import { Fragment } from 'preact';
import { useEffect, useLayoutEffect, useState } from 'preact/hooks';
import { approvalBinding, type BoundRequest } from '../../../core/approval-binding.js';
import { describe, get, post, type Session } from '../api.js';
import { ApprovalHistory } from './approval-history.js';
import { EmptyState, Id, Loading, When } from './common.js';

interface Approval extends BoundRequest {
  approval_id: string;
  status: string;
  intent_id: string;
  expires_at: string;
  created_at: string;
  decided_by?: string | null;
  decided_at?: string | null;
}

interface Page {
  items: Approval[];
  next_cursor: string | null;
}

const POLL_MS = 3000;
const PAGE_SIZE = 20;

/** What the approval binds, exactly as every approval surface renders it. */
function Binding({ a }: { a: Approval }) {
  return (
    <dl class="facts binding">
      {approvalBinding(a).map((f) => (
        <Fragment key={f.key}>
          <dt>{f.label}</dt>
          <dd data-fact={f.key}>
            {f.key === 'digest' ? (
              <Id value={f.value} label="request digest" />
            ) : f.key === 'params' || f.key === 'body' ? (
              <code>{f.value}</code>
            ) : f.key === 'requester' ? (
              <Id value={f.value} label="requester" />
            ) : f.key === 'task' ? (
              <>
                <Id value={a.task_id} label="task id" /> step <Id value={a.effect_key_step} label="step" />
              </>
            ) : (
              f.value
            )}
          </dd>
        </Fragment>
      ))}
    </dl>
  );
}

/**
 * Pending approvals, newest first, a page at a time, refreshed every few seconds so new ones
 * appear without a reload. Older pages and the filters reach every one of them, however
 * many another requester has opened.
 */
export function ApprovalsPage({ session, linked }: { session: Session; linked?: string | undefined }) {
  const [page, setPage] = useState<Page | undefined>(undefined);
  // The approval a link opened (`#/approvals/<id>`): shown whatever page of the list it is on.
  const [opened, setOpened] = useState<{ approval?: Approval; error?: string } | undefined>(undefined);
  const [error, setError] = useState('');
  // cursors of the pages before this one; the last is this page's own (null: the newest)
  const [trail, setTrail] = useState<(string | null)[]>([null]);
  const [filter, setFilter] = useState({ requester: '', capability: '' });
  const [draft, setDraft] = useState({ requester: '', capability: '' });
  const [confirming, setConfirming] = useState<{ a: Approval; decision: 'approve' | 'deny' } | null>(null);
  const [note, setNote] = useState('');
  const [message, setMessage] = useState('');
  // a decision on its way: Confirm is disabled, so a double click sends one decision, not two,
  // and so is Cancel, which could not call it back
  const [deciding, setDeciding] = useState(false);
  // moves on each refresh, so the history below is read again with the list
  const [round, setRound] = useState(0);
  const cursor = trail[trail.length - 1] ?? null;
  // The confirmation takes the focus when it opens (on its note, never on Confirm, so a stray
  // Enter decides nothing), and gives it back to the list when it closes. A layout effect, so
  // the focus moves in the same render the dialog appears in: a key pressed at once lands in
  // the dialog, never on the list behind it.
  useLayoutEffect(() => {
    if (confirming) document.getElementById('decision-note')?.focus();
  }, [confirming]);

  const url = () => {
    const q = new URLSearchParams({ status: 'pending', limit: String(PAGE_SIZE) });
    if (filter.requester) q.set('requester', filter.requester);
    if (filter.capability) q.set('capability', filter.capability);
    if (cursor !== null) q.set('cursor', cursor);
    return `/api/approvals?${q.toString()}`;
  };
  const refreshLinked = () => {
    if (linked === undefined) {
      setOpened(undefined);
      return Promise.resolve();
    }
    return get<Approval>(`/api/approvals/${encodeURIComponent(linked)}`).then(
      (approval) => setOpened({ approval }),
      (err) => setOpened({ error: describe(err) }),
    );
  };
  const refresh = () =>
    Promise.all([
      get<Page>(url()).then(
        (r) => {
          setPage(r);
          setError('');
        },
        (err) => setError(describe(err)),
      ),
      refreshLinked(),
    ]).finally(() => setRound((r) => r + 1));
  useEffect(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), POLL_MS);
    return () => clearInterval(timer);
  }, [cursor, filter.requester, filter.capability, linked]);

  const decide = async () => {
    if (!confirming || deciding) return;
    const { a, decision } = confirming;
    setDeciding(true);
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
    setDeciding(false);
    setConfirming(null);
    setNote('');
    void refresh();
  };

  // A linked approval shows even when the list cannot (a signer who reads no approvals).
  if (page === undefined && opened === undefined) return <Loading error={error} />;
  const approver = session.roles.includes('approver');
  const items = page?.items ?? [];
  const nextCursor = page?.next_cursor ?? null;
  return (
    <section>
      <h2>Approvals</h2>
      <p class="muted">
        Pending approvals, newest first, each with the request it binds: the params and, for a brokered
        capability, the provider request they make. An amount is the requester’s estimate unless it says it
        comes from the params. New ones appear within {POLL_MS / 1000} seconds.
        {!approver && ' You do not hold the approver role: only the capability’s named approvers may decide.'}
      </p>
      {linked !== undefined && opened !== undefined && (
        <div class="card linked" id="linked-approval" data-approval={linked}>
          <h3>
            Linked approval <Id value={linked} label="approval id" />
          </h3>
          {opened.approval ? (
            <>
              <p>
                <span
                  class={`pill ${opened.approval.status === 'pending' ? 'warn' : opened.approval.status === 'approved' ? 'ok' : 'bad'}`}
                >
                  {opened.approval.status}
                </span>{' '}
                {opened.approval.status === 'pending' ? (
                  <>
                    expires <When iso={opened.approval.expires_at} />. Opening a link decides nothing: approve
                    or deny below, after a confirmation.
                  </>
                ) : opened.approval.decided_by ? (
                  <>
                    by {opened.approval.decided_by}, <When iso={opened.approval.decided_at ?? null} />
                  </>
                ) : (
                  'nothing can be decided any more'
                )}
              </p>
              <Binding a={opened.approval} />
              {opened.approval.status === 'pending' && (
                <div class="row">
                  <button
                    class="approve"
                    onClick={() =>
                      opened.approval && setConfirming({ a: opened.approval, decision: 'approve' })
                    }
                  >
                    Approve
                  </button>
                  <button
                    class="deny"
                    onClick={() => opened.approval && setConfirming({ a: opened.approval, decision: 'deny' })}
                  >
                    Deny
                  </button>
                </div>
              )}
            </>
          ) : (
            <p class="error" role="alert">
              {opened.error}
            </p>
          )}
          <p>
            <a href="#/approvals">All pending approvals</a>
          </p>
        </div>
      )}
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setFilter({ requester: draft.requester.trim(), capability: draft.capability.trim() });
          setTrail([null]);
        }}
      >
        <input
          id="filter-requester"
          placeholder="requester"
          aria-label="Filter by requester"
          value={draft.requester}
          onInput={(e) => setDraft({ ...draft, requester: (e.target as HTMLInputElement).value })}
        />
        <input
          id="filter-capability"
          placeholder="capability"
          aria-label="Filter by capability"
          value={draft.capability}
          onInput={(e) => setDraft({ ...draft, capability: (e.target as HTMLInputElement).value })}
        />
        <button type="submit" id="apply-filter">
          Filter
        </button>
      </form>
      {message && (
        <p class="notice" role="status">
          {message}
        </p>
      )}
      {error && <p class="error">{error}</p>}
      {page === undefined ? null : items.length === 0 ? (
        trail.length > 1 || filter.requester || filter.capability ? (
          <EmptyState
            lead={`No pending approvals${trail.length > 1 ? ' on this page' : ' match this filter'}.`}
            next="Clear the filter, or go back to newer approvals."
          />
        ) : (
          <EmptyState
            lead="No pending approvals. Nothing waits for you."
            next={
              <>
                An approval appears here, within {POLL_MS / 1000} seconds, when an agent asks for an
                irreversible action (a capability registered with <code>--irreversible</code>). Decided ones
                are in the Records.
              </>
            }
          />
        )
      ) : (
        <table class="approvals">
          <thead>
            <tr>
              <th scope="col">What it binds</th>
              <th scope="col">Expires</th>
              <th scope="col">Decision</th>
            </tr>
          </thead>
          <tbody>
            {items.map((a) => (
              <tr key={a.approval_id} data-approval={a.approval_id}>
                <td>
                  <Binding a={a} />
                </td>
                <td class="expires">
                  <When iso={a.expires_at} />
                </td>
                <td class="actions">
                  <button
                    class="approve"
                    aria-label={`Approve ${a.capability} for ${a.requester_id}`}
                    onClick={() => setConfirming({ a, decision: 'approve' })}
                  >
                    Approve
                  </button>
                  <button
                    class="deny"
                    aria-label={`Deny ${a.capability} for ${a.requester_id}`}
                    onClick={() => setConfirming({ a, decision: 'deny' })}
                  >
                    Deny
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div class="row pager">
        <button id="newer-page" disabled={trail.length === 1} onClick={() => setTrail(trail.slice(0, -1))}>
          ← Newer
        </button>
        <span class="muted">page {trail.length}</span>
        <button
          id="older-page"
          disabled={nextCursor === null}
          onClick={() => nextCursor !== null && setTrail([...trail, nextCursor])}
        >
          Older →
        </button>
      </div>
      <ApprovalHistory round={round} />
      {confirming && (
        <div
          class="modal"
          role="dialog"
          aria-modal="true"
          aria-labelledby="confirm-title"
          onKeyDown={(e) => e.key === 'Escape' && !deciding && setConfirming(null)}
        >
          <div class="card wide">
            <h3 id="confirm-title">
              {confirming.decision === 'approve' ? 'Approve' : 'Deny'} {confirming.a.capability}?
            </h3>
            <Binding a={confirming.a} />
            <label>
              Note (journaled)
              <input
                id="decision-note"
                value={note}
                onInput={(e) => setNote((e.target as HTMLInputElement).value)}
                maxLength={1000}
              />
            </label>
            <div class="row">
              <button
                id="confirm-decision"
                class={confirming.decision === 'approve' ? 'primary' : 'danger'}
                disabled={deciding}
                onClick={decide}
              >
                Confirm {confirming.decision}
              </button>
              {/* once sent, a decision cannot be called back: nothing offers to */}
              <button disabled={deciding} onClick={() => setConfirming(null)}>
                Cancel
              </button>
            </div>
          </div>
        </div>
      )}
    </section>
  );
}
