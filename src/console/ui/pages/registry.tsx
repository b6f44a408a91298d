import { useState } from 'preact/hooks';
import type { Session } from '../api.js';
import { CapabilityForm, type CapabilityRow } from './capability-form.js';
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

export function CapabilitiesPage({ session }: { session: Session }) {
  const { data, error, reload } = useJson<{ items: CapabilityRow[] }>('/api/capabilities');
  const [editing, setEditing] = useState<CapabilityRow | null>(null);
  const admin = session.roles.includes('administrator');
  if (!data) return <Loading error={error} />;
  return (
    <section>
      <h2>Capabilities</h2>
      {data.items.length === 0 ? (
        <p class="empty">
          No capability registered.{' '}
          {admin
            ? 'Register one below.'
            : 'An administrator registers them here or with `svc capability register`.'}
        </p>
      ) : (
        <div class="table-wrap">
          <table class="capabilities">
            <thead>
              <tr>
                <th>Capability</th>
                <th>Tier</th>
                <th>Irreversible</th>
                <th>Custody</th>
                <th>Actions</th>
                <th>Default amount</th>
                <th>Requestable</th>
                <th>Named approvers</th>
                <th>Owners</th>
                {admin && <th>Edit</th>}
              </tr>
            </thead>
            <tbody>
              {data.items.map((c) => (
                <tr key={c.name} data-capability={c.name}>
                  <td>{c.name}</td>
                  <td class="num">{c.tier}</td>
                  <td>{c.irreversible ? 'yes' : 'no'}</td>
                  <td>
                    {c.custody === 'brokered' ? `brokered (${c.surface_id}/${c.operation})` : c.custody}
                  </td>
                  <td>{text(c.actions)}</td>
                  <td class="num">{usd(c.default_amount_usd)}</td>
                  <td>{c.requestable ? 'yes' : 'no'}</td>
                  <td>{text(c.approvers)}</td>
                  <td>{text(c.owners)}</td>
                  {admin && (
                    <td class="actions">
                      <button onClick={() => setEditing(c)} aria-label={`edit ${c.name}`}>
                        Edit
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {admin ? (
        <>
          {editing && (
            <p>
              <button onClick={() => setEditing(null)}>Register a new one instead</button>
            </p>
          )}
          <CapabilityForm editing={editing} onSaved={reload} />
        </>
      ) : (
        <p class="muted">Administrators register and edit capabilities.</p>
      )}
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
