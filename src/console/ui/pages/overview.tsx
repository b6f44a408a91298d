import type { ComponentChildren } from 'preact';
import { Id, Loading, useJson, usd, When } from './common.js';
import { age, words } from './record-words.js';

interface Outcomes {
  allowed: number;
  refused: number;
  deferred: number;
}

interface Overview {
  generated_at: string;
  approvals: {
    pending: number;
    oldest: {
      approval_id: string;
      capability: string;
      action: string;
      requester_id: string;
      task_id: string;
      amount_usd: number;
      created_at: string;
      age_seconds: number;
      expires_at: string;
    }[];
  };
  decisions: {
    hours: (Outcomes & { hour: string })[];
    this_hour: Outcomes;
    last_24h: Outcomes;
    refusal_codes: { code: string; count: number }[];
    records_by_kind: { kind: string; count: number }[];
  };
  spend: { task_id: string; budget_usd: number; reserved_usd: number; remaining_usd: number; burn: number }[];
  anchors: {
    journal_size: number;
    anchored_size: number;
    first_unanchored_at: string | null;
    latest: {
      tree_size: number;
      signed_at: string;
      age_seconds: number;
      timestamp: { authority: string; time: string; placeholder: boolean } | null;
      witnesses: { witness_id: string; signed_at: string }[];
    } | null;
  };
  notifications: {
    pending: number;
    dead: number;
    disabled: number;
    failing_destinations: { destination_id: string; kind: string; reason: string | null }[];
  };
}

const records = (q: Record<string, string>) => `#/records/${new URLSearchParams(q).toString()}`;
const ORDER = ['allowed', 'deferred', 'refused'] as const;

/** Decisions per clock hour, stacked by outcome: plain SVG, colours from the theme. */
function HourChart({ hours }: { hours: Overview['decisions']['hours'] }) {
  const max = Math.max(1, ...hours.map((h) => h.allowed + h.refused + h.deferred));
  const w = 10;
  const gap = 3;
  const plot = 90;
  const width = hours.length * (w + gap);
  const label = hours
    .map(
      (h) =>
        `${h.hour.slice(11, 16)} UTC: ${h.allowed} allowed, ${h.deferred} deferred, ${h.refused} refused`,
    )
    .join('; ');
  return (
    <svg
      class="chart hours"
      viewBox={`0 0 ${width} ${plot + 22}`}
      role="img"
      aria-label={`Decisions per hour. ${label}`}
    >
      {hours.map((h, i) => {
        let y = plot;
        return (
          <g key={h.hour}>
            {ORDER.map((o) => {
              const height = (h[o] / max) * plot;
              y -= height;
              return height > 0 ? (
                <rect key={o} x={i * (w + gap)} y={y} width={w} height={height} class={`bar-${o}`} />
              ) : null;
            })}
            {i % 6 === 0 && (
              <text x={i * (w + gap)} y={plot + 16} class="chart-value">
                {h.hour.slice(11, 16)}
              </text>
            )}
          </g>
        );
      })}
    </svg>
  );
}

function Tile({
  title,
  href,
  link,
  children,
}: {
  title: string;
  href: string;
  link: string;
  children: ComponentChildren;
}) {
  return (
    <section class="card tile" aria-labelledby={`tile-${href}`}>
      <h3 id={`tile-${href}`}>{title}</h3>
      {children}
      <p class="tile-link">
        <a href={href}>{link}</a>
      </p>
    </section>
  );
}

function Counts({ o }: { o: Outcomes }) {
  return (
    <span class="outcome-counts">
      <a href={records({ kind: 'decision', outcome: 'allowed' })} class="ok">
        {o.allowed} allowed
      </a>
      {' · '}
      <a href={records({ kind: 'decision', outcome: 'deferred' })} class="info">
        {o.deferred} deferred
      </a>
      {' · '}
      <a href={records({ kind: 'decision', outcome: 'refused' })} class="bad">
        {o.refused} refused
      </a>
    </span>
  );
}

/**
 * The landing page: what waits, what happened in the last day, what is running out, and
 * whether the evidence and the notifications are healthy, each linking to the page with the
 * rest. Every figure comes from one bounded request (GET /api/overview).
 */
export function OverviewPage() {
  const { data, error } = useJson<Overview>('/api/overview');
  if (!data) return <Loading error={error} />;
  const { approvals, decisions, spend, anchors, notifications } = data;
  const behind = anchors.journal_size - anchors.anchored_size;
  return (
    <section>
      <h2>Overview</h2>
      <p class="muted">
        As of <When iso={data.generated_at} />. Hours are clock hours (UTC); the last one is still running.
      </p>
      <div class="tiles">
        <Tile title="Waiting for approval" href="#/approvals" link="Open approvals">
          <p class="tile-count">
            <span class="big">{approvals.pending}</span> pending
          </p>
          {approvals.oldest.length === 0 ? (
            <p class="empty">Nothing waits for a person.</p>
          ) : (
            <ul class="plain">
              {approvals.oldest.map((a) => (
                <li key={a.approval_id}>
                  <a href={`#/approvals/${encodeURIComponent(a.approval_id)}`}>
                    {a.capability} ({a.action}) {usd(a.amount_usd)}
                  </a>{' '}
                  <span class="muted">
                    by {a.requester_id}, waiting {age(a.age_seconds)}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </Tile>
        <Tile
          title="Decisions, last 24 hours"
          href={records({ kind: 'decision' })}
          link="Open decision records"
        >
          <p>
            This hour: <Counts o={decisions.this_hour} />
          </p>
          <p>
            24 hours: <Counts o={decisions.last_24h} />
          </p>
          <HourChart hours={decisions.hours} />
          <p class="legend">
            <span class="swatch allowed" /> allowed <span class="swatch deferred" /> deferred{' '}
            <span class="swatch refused" /> refused
          </p>
        </Tile>
        <Tile
          title="Top refusal codes, 24 hours"
          href={records({ kind: 'decision', outcome: 'refused' })}
          link="Open refusals"
        >
          {decisions.refusal_codes.length === 0 ? (
            <p class="empty">No refusal in the last 24 hours.</p>
          ) : (
            <ol class="plain">
              {decisions.refusal_codes.map((c) => (
                <li key={c.code}>
                  <a href={records({ kind: 'decision', outcome: 'refused', code: c.code })}>
                    {words(c.code)}
                  </a>{' '}
                  <span class="muted">× {c.count}</span>
                </li>
              ))}
            </ol>
          )}
          {decisions.records_by_kind.length > 0 && (
            <p class="muted">
              All records: {decisions.records_by_kind.map((k) => `${k.count} ${words(k.kind)}`).join(', ')}
            </p>
          )}
        </Tile>
        <Tile title="Budget burn" href="#/spend" link="Open spend">
          {spend.length === 0 ? (
            <p class="empty">No active task. Create one with svc task create.</p>
          ) : (
            <ul class="plain burn">
              {spend.map((t) => (
                <li key={t.task_id}>
                  <Id value={t.task_id} label="task" />
                  <meter
                    min={0}
                    max={1}
                    high={0.8}
                    optimum={0}
                    value={Math.min(1, t.burn)}
                    aria-label={`${t.task_id} budget used`}
                  />
                  <span class="muted">
                    {usd(t.reserved_usd)} of {usd(t.budget_usd)} ({Math.round(t.burn * 100)} %)
                  </span>
                </li>
              ))}
            </ul>
          )}
        </Tile>
        <Tile title="Evidence: anchors and witnesses" href="#/verify" link="Verify an export">
          {anchors.latest === null ? (
            <p class={anchors.journal_size > 0 ? 'warning' : 'empty'}>
              {anchors.journal_size > 0
                ? `No signed head yet: ${anchors.journal_size} records wait for the first anchor (the daemon signs on its --anchor-interval).`
                : 'The journal is empty: nothing to anchor yet.'}
            </p>
          ) : (
            <dl class="facts compact">
              <dt>Latest signed head</dt>
              <dd>
                {anchors.latest.tree_size} records, signed {age(anchors.latest.age_seconds)} ago
              </dd>
              <dt>Not yet covered</dt>
              <dd>
                {behind === 0 ? 'none' : `${behind} records`}
                {anchors.first_unanchored_at && (
                  <span class="muted">
                    {' '}
                    (oldest <When iso={anchors.first_unanchored_at} />)
                  </span>
                )}
              </dd>
              <dt>Timestamp</dt>
              <dd>
                {anchors.latest.timestamp === null
                  ? 'none recorded'
                  : anchors.latest.timestamp.placeholder
                    ? 'placeholder only (no trusted time authority configured)'
                    : `RFC 3161 from ${anchors.latest.timestamp.authority}`}
              </dd>
              <dt>Witnesses</dt>
              <dd>
                {anchors.latest.witnesses.length === 0
                  ? 'no cosignature'
                  : anchors.latest.witnesses.map((w) => w.witness_id).join(', ')}
              </dd>
            </dl>
          )}
        </Tile>
        <Tile title="Notifications" href="#/notifications" link="Open notifications">
          <p>
            {notifications.dead} dead letters · {notifications.pending} pending · {notifications.disabled}{' '}
            destinations disabled
          </p>
          {notifications.failing_destinations.length > 0 && (
            <ul class="plain">
              {notifications.failing_destinations.map((d) => (
                <li key={d.destination_id}>
                  {d.destination_id} ({d.kind}) <span class="muted">{d.reason ?? 'disabled'}</span>
                </li>
              ))}
            </ul>
          )}
        </Tile>
      </div>
    </section>
  );
}
