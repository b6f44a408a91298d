import { Loading, useJson, usd, when } from './common.js';

type Row = Record<string, unknown>;
const text = (v: unknown) =>
  Array.isArray(v) ? v.join(', ') || '–' : v === null || v === undefined ? '–' : String(v);

function Table({ rows, columns }: { rows: Row[]; columns: [string, string][] }) {
  if (rows.length === 0) return <p class="empty">Nothing registered.</p>;
  return (
    <table>
      <thead>
        <tr>
          {columns.map(([, label]) => (
            <th key={label}>{label}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((r, i) => (
          <tr key={i}>
            {columns.map(([k]) => (
              <td key={k}>
                {k === 'default_amount_usd'
                  ? usd(r[k] as number)
                  : k.endsWith('_at')
                    ? when(r[k] as string | null)
                    : text(r[k])}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function AgentsPage() {
  const { data, error } = useJson<{ items: Row[] }>('/api/agents');
  if (!data) return <Loading error={error} />;
  return (
    <section>
      <h2>Agents</h2>
      <Table
        rows={data.items}
        columns={[
          ['actor_id', 'Agent'],
          ['manager_id', 'Accountable manager'],
          ['permissions', 'Standing permissions'],
          ['created_at', 'Registered'],
        ]}
      />
    </section>
  );
}

export function CapabilitiesPage() {
  const { data, error } = useJson<{ items: Row[] }>('/api/capabilities');
  if (!data) return <Loading error={error} />;
  return (
    <section>
      <h2>Capabilities</h2>
      <Table
        rows={data.items}
        columns={[
          ['name', 'Capability'],
          ['tier', 'Tier'],
          ['irreversible', 'Irreversible'],
          ['custody', 'Custody'],
          ['actions', 'Actions'],
          ['default_amount_usd', 'Default amount'],
          ['approvers', 'Named approvers'],
          ['surface_id', 'Surface'],
        ]}
      />
    </section>
  );
}

export function IntegrationsPage() {
  const { data, error } = useJson<{ configured: boolean; items: Row[] }>('/api/integrations');
  if (!data) return <Loading error={error} />;
  return (
    <section>
      <h2>Integrations</h2>
      <p class="muted">
        Surface ids and state; no adapter is contacted, so this does not prove connectivity.
        {!data.configured &&
          ' The console was started without --integration-ops: only surfaces with a stored rotation or revocation are listed.'}
      </p>
      <Table
        rows={data.items}
        columns={[
          ['surface_id', 'Surface'],
          ['adapter', 'Adapter'],
          ['status', 'State'],
          ['operations', 'Operations'],
          ['rotated_at', 'Rotated'],
          ['revoked_at', 'Revoked'],
        ]}
      />
    </section>
  );
}
