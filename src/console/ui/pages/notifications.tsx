import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { describe, get, post, type Session } from '../api.js';
import { Id, Loading, When } from './common.js';
import { AddDestination, DestinationActions } from './notification-admin.js';

interface Destination {
  destination_id: string;
  kind: string;
  url: string;
  events: string[];
  settings: Record<string, unknown>;
  remind_after_seconds: number | null;
  escalate_to: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  created_at: string;
}

interface Overview {
  counts: { pending: number; dead: number; disabled: number };
  destinations: Destination[];
}

interface Delivery {
  event_id: string;
  event_type: string;
  destination_id: string;
  state: 'pending' | 'delivered' | 'dead' | 'disabled';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
}

interface Page {
  items: Delivery[];
  next_cursor: string | null;
}

const PAGE_SIZE = 20;
const POLL_MS = 5000;
const STATE_PILL: Record<Delivery['state'], string> = {
  pending: 'warn',
  delivered: 'ok',
  dead: 'bad',
  disabled: 'bad',
};

const settingText = (v: unknown) => (Array.isArray(v) ? v.join(', ') : String(v));
const seconds = (s: number) => (s % 3600 === 0 ? `${s / 3600} h` : s % 60 === 0 ? `${s / 60} min` : `${s} s`);
const last = (d: Delivery) => d.last_error ?? (d.last_status === null ? '–' : String(d.last_status));

function Destinations({
  items,
  admin,
  onChanged,
}: {
  items: Destination[];
  admin: boolean;
  onChanged: (message: string) => void;
}) {
  if (items.length === 0) {
    return (
      <p class="empty" id="no-destinations">
        No destinations: nothing is sent. An administrator adds one below, or on the deployment’s machine, for
        example{' '}
        <code>
          svc notify add ops-hook --tenant TENANT --kind webhook --url https://hooks.example.org/svc --events
          'approval.*'
        </code>
        .
      </p>
    );
  }
  return (
    <div class="table-wrap">
      <table class="destinations">
        <thead>
          <tr>
            <th>Destination</th>
            <th>Receiver</th>
            <th>Events</th>
            <th>Settings</th>
            <th>Reminder</th>
            <th>State</th>
            {admin && <th>Change</th>}
          </tr>
        </thead>
        <tbody>
          {items.map((d) => (
            <tr key={d.destination_id} data-destination={d.destination_id}>
              <td>
                {d.destination_id} <span class="dim">{d.kind}</span>
              </td>
              <td>
                <code>{d.url}</code>
              </td>
              <td>{d.events.join(', ')}</td>
              <td>
                {Object.keys(d.settings).length === 0 ? (
                  <span class="dim">–</span>
                ) : (
                  <dl class="facts compact">
                    {Object.entries(d.settings).map(([k, v]) => (
                      <Fragment key={k}>
                        <dt>{k}</dt>
                        <dd>{settingText(v)}</dd>
                      </Fragment>
                    ))}
                  </dl>
                )}
              </td>
              <td>
                {d.remind_after_seconds === null
                  ? '–'
                  : `after ${seconds(d.remind_after_seconds)}${d.escalate_to ? `, also to ${d.escalate_to}` : ''}`}
              </td>
              <td data-state={d.enabled ? 'enabled' : 'disabled'}>
                {d.enabled ? (
                  <span class="pill ok">enabled</span>
                ) : (
                  <>
                    <span class="pill bad">disabled</span>{' '}
                    <span class="muted">{d.disabled_reason ?? 'by an administrator'}</span>
                  </>
                )}
              </td>
              {admin && (
                <td class="actions">
                  <DestinationActions id={d.destination_id} kind={d.kind} onChanged={onChanged} />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A page of deliveries (all, or the dead letters), newest first, Older / Newer by keyset cursor. */
function Deliveries({
  state,
  admin,
  onChanged,
  tick,
}: {
  state?: 'dead';
  admin: boolean;
  onChanged: (message: string) => void;
  tick: number;
}) {
  const [page, setPage] = useState<Page | undefined>(undefined);
  const [error, setError] = useState('');
  const [trail, setTrail] = useState<(string | null)[]>([null]);
  const [busy, setBusy] = useState('');
  const cursor = trail[trail.length - 1] ?? null;
  const id = state === 'dead' ? 'dead-letters' : 'deliveries';
  useEffect(() => {
    const q = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (state) q.set('state', state);
    if (cursor !== null) q.set('cursor', cursor);
    let live = true;
    get<Page>(`/api/notifications/deliveries?${q.toString()}`).then(
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

  const redeliver = async (d: Delivery) => {
    setBusy(`${d.event_id}/${d.destination_id}`);
    try {
      await post('/api/notifications/redeliver', { event_id: d.event_id, destination_id: d.destination_id });
      onChanged(
        `Queued ${d.event_id} for ${d.destination_id} again, with the same event id; the daemon sends it on its next look.`,
      );
    } catch (err) {
      onChanged(describe(err));
    } finally {
      setBusy('');
    }
  };

  if (page === undefined) return <Loading error={error} />;
  if (page.items.length === 0 && trail.length === 1) {
    return (
      <p class="empty" id={`no-${id}`}>
        {state === 'dead'
          ? 'No dead letters: every delivery was accepted or is still being retried.'
          : 'No deliveries yet. Events are written when something a destination subscribes to happens; try one with svc notify test DESTINATION --tenant TENANT.'}
      </p>
    );
  }
  return (
    <>
      {error && <p class="error">{error}</p>}
      <div class="table-wrap">
        <table id={id}>
          <thead>
            <tr>
              <th>Event</th>
              <th>Destination</th>
              <th>State</th>
              <th>Attempts</th>
              <th>Last</th>
              <th>{state === 'dead' ? 'Failed' : 'Next attempt'}</th>
              {state === 'dead' && <th />}
            </tr>
          </thead>
          <tbody>
            {page.items.map((d) => (
              <tr
                key={`${d.event_id}/${d.destination_id}`}
                data-event={d.event_id}
                data-destination={d.destination_id}
              >
                <td>
                  {d.event_type}
                  <br />
                  <Id value={d.event_id} label="event id" />
                </td>
                <td>{d.destination_id}</td>
                <td>
                  <span class={`pill ${STATE_PILL[d.state]}`}>{d.state}</span>
                </td>
                <td class="num">{d.attempts}</td>
                <td>
                  <code>{last(d)}</code>
                </td>
                <td>
                  <When iso={state === 'dead' ? d.updated_at : d.next_attempt_at} />
                </td>
                {state === 'dead' && (
                  <td class="actions">
                    {admin ? (
                      <button
                        class="redeliver"
                        disabled={busy === `${d.event_id}/${d.destination_id}`}
                        onClick={() => void redeliver(d)}
                      >
                        Redeliver
                      </button>
                    ) : (
                      <span class="dim">administrators redeliver</span>
                    )}
                  </td>
                )}
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
    </>
  );
}

/**
 * The tenant's notifications: where events go, what was sent and what failed. Nothing here
 * is secret (the routes send no signing secret, token or password, and a URL's query only as
 * `?…`); redelivering is an administrator's, and the server checks it again.
 */
export function NotificationsPage({ session }: { session: Session }) {
  const [overview, setOverview] = useState<Overview | undefined>(undefined);
  const [error, setError] = useState('');
  const [message, setMessage] = useState('');
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    get<Overview>('/api/notifications').then(
      (r) => live && setOverview(r),
      (err) => live && setError(describe(err)),
    );
    return () => {
      live = false;
    };
  }, [tick]);
  useEffect(() => {
    const timer = setInterval(() => setTick((t) => t + 1), POLL_MS);
    return () => clearInterval(timer);
  }, []);
  if (overview === undefined) {
    return (
      <section>
        <h2>Notifications</h2>
        <Loading error={error} />
      </section>
    );
  }
  const admin = session.roles.includes('administrator');
  const { counts } = overview;
  return (
    <section>
      <h2>Notifications</h2>
      <p class="muted">
        Where this tenant’s events go, and what became of each delivery. Administrators configure destinations
        here or with <code>svc notify add</code>; a secret given here is sealed on the server and never shown
        again.
      </p>
      <div class="counts" id="notify-counts">
        <div class="card count" data-count="pending">
          <span class="big">{counts.pending}</span> pending
        </div>
        <div class={`card count${counts.dead > 0 ? ' bad' : ''}`} data-count="dead">
          <span class="big">{counts.dead}</span> dead letters
        </div>
        <div class={`card count${counts.disabled > 0 ? ' bad' : ''}`} data-count="disabled">
          <span class="big">{counts.disabled}</span> disabled destinations
        </div>
      </div>
      {message && (
        <p class="notice" role="status">
          {message}
        </p>
      )}
      <h3>Destinations</h3>
      <Destinations
        items={overview.destinations}
        admin={admin}
        onChanged={(m) => {
          setMessage(m);
          setTick((t) => t + 1);
        }}
      />
      <h3>Dead letters</h3>
      <p class="muted">
        Deliveries that failed every attempt (about 31 hours of retries), kept 30 days.
        {admin
          ? ' Redeliver sends one again with the same event id, once the receiver is fixed.'
          : ' An administrator can send one again.'}
      </p>
      <Deliveries
        state="dead"
        admin={admin}
        tick={tick}
        onChanged={(m) => {
          setMessage(m);
          setTick((t) => t + 1);
        }}
      />
      <h3>Recent deliveries</h3>
      <Deliveries admin={admin} tick={tick} onChanged={setMessage} />
      {admin && (
        <>
          <h3>Add a destination</h3>
          <AddDestination
            onAdded={(m) => {
              setMessage(m);
              setTick((t) => t + 1);
            }}
          />
        </>
      )}
    </section>
  );
}
