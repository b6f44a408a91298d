import { describe, expect, it } from 'vitest';
import { SvcMetrics } from '../../../src/metrics/registry.js';
import type { AnchorBacklog } from '../../../src/store/evidence-ports.js';

const seen = (over: Partial<Parameters<SvcMetrics['decided']>[0]> = {}) => ({
  route: 'action',
  outcome: 'allowed',
  code: '',
  tenantId: 'acme',
  seconds: 0.002,
  ...over,
});

describe('SvcMetrics', () => {
  it('counts decisions by route, outcome and code, and times them in a histogram', async () => {
    const m = new SvcMetrics({}, { defaultMetrics: false });
    m.decided(seen());
    m.decided(seen());
    m.decided(seen({ outcome: 'refused', code: 'budget_exceeded', seconds: 0.2 }));
    m.decided(seen({ route: 'brokered', outcome: 'error', code: 'unavailable' }));
    const text = await m.text();
    expect(text).toContain('svc_decisions_total{route="action",outcome="allowed",code=""} 2');
    expect(text).toContain('svc_decisions_total{route="action",outcome="refused",code="budget_exceeded"} 1');
    expect(text).toContain('svc_decisions_total{route="brokered",outcome="error",code="unavailable"} 1');
    expect(text).toContain('svc_decision_duration_seconds_count{route="action"} 3');
    expect(text).toContain('svc_decision_duration_seconds_bucket{le="0.0025",route="action"} 2');
    expect(text).toContain('# TYPE svc_decision_duration_seconds histogram');
    // No tenant label unless the operator asks for one.
    expect(text).not.toContain('tenant=');
  });

  it('labels tenants only when enabled', async () => {
    const m = new SvcMetrics({}, { defaultMetrics: false, tenantLabel: true });
    m.decided(seen({ tenantId: 'acme' }));
    m.decided(seen({ tenantId: 'globex' }));
    const text = await m.text();
    expect(text).toContain('svc_decisions_total{route="action",outcome="allowed",code="",tenant="acme"} 1');
    expect(text).toContain('svc_decisions_total{route="action",outcome="allowed",code="",tenant="globex"} 1');
  });

  it('reads journal size and anchor age on scrape, once per scrape for both gauges', async () => {
    let reads = 0;
    let rows: AnchorBacklog[] = [
      { tenantId: 'acme', size: 10, anchoredSize: 4, firstUnanchoredAt: '2026-01-01T00:00:00.000Z' },
      { tenantId: 'globex', size: 5, anchoredSize: 5, firstUnanchoredAt: null },
    ];
    const m = new SvcMetrics(
      {
        backlog: async () => {
          reads++;
          return rows;
        },
        clock: () => new Date('2026-01-01T00:01:30.000Z'),
      },
      { defaultMetrics: false },
    );
    expect(reads).toBe(0);
    let text = await m.text();
    expect(reads).toBe(1);
    expect(text).toContain('svc_journal_entries 15');
    expect(text).toContain('svc_anchor_age_seconds 90');
    rows = [{ tenantId: 'acme', size: 12, anchoredSize: 12, firstUnanchoredAt: null }];
    await new Promise((r) => setImmediate(r));
    text = await m.text();
    expect(reads).toBe(2);
    expect(text).toContain('svc_journal_entries 12');
    expect(text).toContain('svc_anchor_age_seconds 0');
  });

  it('labels the per-tenant gauges when enabled', async () => {
    const m = new SvcMetrics(
      {
        backlog: async () => [
          { tenantId: 'acme', size: 3, anchoredSize: 0, firstUnanchoredAt: '2026-01-01T00:00:00.000Z' },
        ],
        clock: () => new Date('2026-01-01T00:00:02.000Z'),
      },
      { defaultMetrics: false, tenantLabel: true },
    );
    const text = await m.text();
    expect(text).toContain('svc_journal_entries{tenant="acme"} 3');
    expect(text).toContain('svc_anchor_age_seconds{tenant="acme"} 2');
  });

  it('reports attestation failures from their source, and the default process metrics', async () => {
    let failures = 0;
    const m = new SvcMetrics({ attestationFailures: () => failures });
    expect(await m.text()).toContain('svc_attestation_failures_total 0');
    failures = 3;
    const text = await m.text();
    expect(text).toContain('svc_attestation_failures_total 3');
    expect(text).toContain('process_cpu_seconds_total');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    expect(text).toContain('nodejs_active_handles{');
    // Gauges named like counters are left out: promtool check metrics refuses them.
    expect(text).not.toMatch(/^nodejs_active_\w+_total/m);
  });

  it('keeps each daemon in its own registry', async () => {
    const a = new SvcMetrics({}, { defaultMetrics: false });
    const b = new SvcMetrics({}, { defaultMetrics: false });
    a.decided(seen());
    expect(await a.text()).toContain('svc_decisions_total{route="action",outcome="allowed",code=""} 1');
    expect(await b.text()).not.toContain('outcome="allowed"');
  });

  it('reports the token cache hits and misses from their source', async () => {
    let stats = { hits: 0, misses: 0 };
    const m = new SvcMetrics({ tokenCache: () => stats }, { defaultMetrics: false });
    expect(await m.text()).toContain('svc_token_cache_hits_total 0');
    stats = { hits: 41, misses: 2 };
    const text = await m.text();
    expect(text).toContain('svc_token_cache_hits_total 41');
    expect(text).toContain('svc_token_cache_misses_total 2');
  });

  it('records commit batch sizes and fsync times as histograms', async () => {
    const m = new SvcMetrics({}, { defaultMetrics: false });
    m.batch(1);
    m.batch(40);
    m.fsync(0.0004);
    const text = await m.text();
    expect(text).toContain('# TYPE svc_commit_batch_size histogram');
    expect(text).toContain('svc_commit_batch_size_bucket{le="1"} 1');
    expect(text).toContain('svc_commit_batch_size_bucket{le="64"} 2');
    expect(text).toContain('svc_commit_batch_size_sum 41');
    expect(text).toContain('svc_commit_fsync_seconds_bucket{le="0.0005"} 1');
    expect(text).toContain('svc_commit_fsync_seconds_count 1');
    expect(text).toContain('svc_store_busy_total 0');
    m.busy(3);
    expect(await m.text()).toContain('svc_store_busy_total 3');
  });

  it('counts console requests by route pattern, method and status, only once one is seen', async () => {
    const m = new SvcMetrics({}, { defaultMetrics: false });
    expect(await m.text()).not.toContain('svc_console_requests_total');
    m.request('/api/approvals/:id', 'GET', 200, 0.003);
    m.request('/api/approvals/:id', 'GET', 200, 0.004);
    m.request('unmatched', 'GET', 404, 0.001);
    const text = await m.text();
    expect(text).toContain(
      'svc_console_requests_total{route="/api/approvals/:id",method="GET",status="200"} 2',
    );
    expect(text).toContain('svc_console_requests_total{route="unmatched",method="GET",status="404"} 1');
    expect(text).toContain('svc_console_request_duration_seconds_count{route="/api/approvals/:id"} 2');
  });

  it('serves PostgreSQL pool gauges only when given a pool, read on scrape', async () => {
    expect(await new SvcMetrics({}, { defaultMetrics: false }).text()).not.toContain('svc_postgres_pool');
    let stats = { total: 4, idle: 3, waiting: 0 };
    const m = new SvcMetrics({ pool: () => stats }, { defaultMetrics: false });
    expect(await m.text()).toContain('svc_postgres_pool_connections 4');
    stats = { total: 10, idle: 0, waiting: 7 };
    const text = await m.text();
    expect(text).toContain('svc_postgres_pool_connections 10');
    expect(text).toContain('svc_postgres_pool_idle_connections 0');
    expect(text).toContain('svc_postgres_pool_waiting_queries 7');
  });

  it('reads pending approvals on scrape, summed or by tenant', async () => {
    const rows = [
      { tenantId: 'acme', count: 2 },
      { tenantId: 'globex', count: 1 },
    ];
    expect(
      await new SvcMetrics({ approvalsPending: async () => rows }, { defaultMetrics: false }).text(),
    ).toContain('svc_approvals_pending 3');
    const text = await new SvcMetrics(
      { approvalsPending: async () => rows },
      { defaultMetrics: false, tenantLabel: true },
    ).text();
    expect(text).toContain('svc_approvals_pending{tenant="acme"} 2');
    expect(text).toContain('svc_approvals_pending{tenant="globex"} 1');
  });
});
