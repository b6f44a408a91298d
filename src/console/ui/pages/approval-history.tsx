import { useState } from 'preact/hooks';
import { Id, Loading, useJson, usd, When } from './common.js';
import { words } from './record-words.js';

interface Decided {
  approval_id: string;
  status: string;
  capability: string;
  action: string;
  requester_id: string;
  task_id: string;
  amount_usd: number;
  decided_by: string | null;
  decided_at: string | null;
  channel: string | null;
  note: string | null;
  expires_at: string;
  created_at: string;
}

const PAGE_SIZE = 20;

/**
 * Where a decision came from. `svc approvals approve` and the SDKs decide through the daemon's
 * API, which records `api`; a notification email's link decides through the console.
 */
const CHANNELS: Record<string, string> = {
  console: 'console',
  cli: 'CLI',
  api: 'API or CLI',
  chat: 'team chat',
  collab: 'collaboration suite',
};

const STATUS_TONE: Record<string, string> = {
  approved: 'ok',
  consumed: 'ok',
  denied: 'bad',
  expired: 'info',
};
const STATUS_WORDS: Record<string, string> = {
  approved: 'approved, not yet used',
  consumed: 'approved and used',
  denied: 'denied',
  expired: 'expired',
};

/**
 * Approvals no longer waiting, newest first: who decided, when, through which channel and
 * why; an approval nobody decided in time shows as expired. Paged by the server's cursor.
 * Read again whenever `round` moves: the approvals page moves it on each poll and after a
 * decision made here, so one decided in chat, by the CLI or on this page shows without a reload.
 */
export function ApprovalHistory({ round }: { round: number }) {
  // cursors of the pages before this one; the last is this page's own (null: the newest)
  const [trail, setTrail] = useState<(string | null)[]>([null]);
  const cursor = trail[trail.length - 1] ?? null;
  const url = `/api/approvals?status=history&limit=${PAGE_SIZE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
  const { data, error } = useJson<{ items: Decided[]; next_cursor: string | null }>(url, [round]);
  return (
    <section class="approval-history" aria-labelledby="history-title">
      <h3 id="history-title">History</h3>
      {!data ? (
        <Loading error={error} />
      ) : data.items.length === 0 ? (
        <p class="empty">No approval has been decided or has expired yet. Decided ones appear here.</p>
      ) : (
        <div class="table-wrap">
          <table class="history">
            <thead>
              <tr>
                <th>Approval</th>
                <th>What</th>
                <th>Requested by</th>
                <th>Outcome</th>
                <th>Decided by</th>
                <th>When</th>
                <th>Channel</th>
                <th>Note</th>
              </tr>
            </thead>
            <tbody>
              {data.items.map((a) => (
                <tr key={a.approval_id}>
                  <td>
                    <Id value={a.approval_id} label="approval" />{' '}
                    <a
                      href={`#/approvals/${encodeURIComponent(a.approval_id)}`}
                      aria-label={`open approval ${a.approval_id}`}
                    >
                      open
                    </a>
                  </td>
                  <td>
                    {a.capability} ({a.action}) {usd(a.amount_usd)}
                  </td>
                  <td>{a.requester_id}</td>
                  <td>
                    <span class={`pill ${STATUS_TONE[a.status] ?? 'info'}`}>
                      {STATUS_WORDS[a.status] ?? words(a.status)}
                    </span>
                  </td>
                  <td>
                    {a.decided_by ? (
                      <a href={`#/people/${encodeURIComponent(a.decided_by)}`}>{a.decided_by}</a>
                    ) : (
                      <span class="muted">nobody</span>
                    )}
                  </td>
                  <td class="when">
                    {a.decided_at ? <When iso={a.decided_at} /> : <When iso={a.expires_at} />}
                  </td>
                  <td>{a.channel ? (CHANNELS[a.channel] ?? a.channel) : <span class="muted">none</span>}</td>
                  <td>{a.note ?? <span class="muted">none</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div class="row pager">
        <button type="button" disabled={trail.length === 1} onClick={() => setTrail(trail.slice(0, -1))}>
          Newer
        </button>
        <button
          type="button"
          disabled={!data?.next_cursor}
          onClick={() => data?.next_cursor && setTrail([...trail, data.next_cursor])}
        >
          Older
        </button>
      </div>
    </section>
  );
}
