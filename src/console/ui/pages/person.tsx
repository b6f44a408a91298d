import { useState } from 'preact/hooks';
import type { Session } from '../api.js';
import { Confirm, Field, Outcome, RevokeCell, useWrite } from './admin-form.js';
import { Id, Loading, useJson, When } from './common.js';
import { PersonEntitlements } from './person-entitlements.js';
import type { Entitlement, Person } from './person-view.js';
import { PersonTokens } from './person-tokens.js';

type Detail = Person & { entitlements: Entitlement[] };

const personLink = (id: string) => <a href={`#/people/${encodeURIComponent(id)}`}>{id}</a>;

/** One person: who they are, their tokens, standing permissions and entitlements. */
export function PersonPage({ session, actorId }: { session: Session; actorId: string }) {
  const { data, error, reload } = useJson<Detail>(`/api/people/${encodeURIComponent(actorId)}`);
  const admin = session.roles.includes('administrator');
  if (!data) return <Loading error={error} />;
  return (
    <section id="person" data-actor={data.actor_id}>
      <p>
        <a href="#/people">← People</a>
      </p>
      <h2>
        {data.display_name ?? data.actor_id} <span class="muted">({data.kind})</span>
      </h2>
      <dl class="facts">
        <dt>Actor id</dt>
        <dd>
          <Id value={data.actor_id} label="actor id" />
        </dd>
        <dt>Kind</dt>
        <dd>{data.kind}</dd>
        {data.kind === 'human' && (
          <>
            <dt>Roles</dt>
            <dd>{data.roles.join(', ') || 'none: cannot sign in to the console'}</dd>
          </>
        )}
        {data.kind === 'agent' && (
          <>
            <dt>Accountable manager</dt>
            <dd>{data.manager ? personLink(data.manager) : '–'}</dd>
          </>
        )}
        {data.manages.length > 0 && (
          <>
            <dt>Manages</dt>
            <dd class="links">
              {data.manages.map((m) => (
                <span key={m}>{personLink(m)} </span>
              ))}
            </dd>
          </>
        )}
        {data.cert_subject && (
          <>
            <dt>Certificate subject</dt>
            <dd>{data.cert_subject}</dd>
          </>
        )}
        <dt>Registered</dt>
        <dd>
          <When iso={data.created_at} />
        </dd>
      </dl>
      <PersonTokens person={data} admin={admin} onChange={reload} />
      <Permissions person={data} admin={admin} onChange={reload} />
      <PersonEntitlements
        person={data}
        entitlements={data.entitlements}
        mayRevoke={
          session.roles.some((r) => r === 'operator' || r === 'administrator') ||
          data.manager === session.actor_id
        }
        onChange={reload}
      />
    </section>
  );
}

function Permissions({ person, admin, onChange }: { person: Person; admin: boolean; onChange: () => void }) {
  const caps = useJson<{ items: { name: string }[] }>('/api/capabilities');
  const [capability, setCapability] = useState('');
  const [revoking, setRevoking] = useState<string | null>(null);
  const grant = useWrite();
  const revoke = useWrite();
  const held = new Set(person.permissions.map((p) => p.capability));
  const submit = async (e: Event) => {
    e.preventDefault();
    const r = await grant.send<{ capability: string; result: string }>(
      '/api/permissions',
      { actor_id: person.actor_id, capability },
      (p) =>
        p.result === 'created'
          ? `Granted ${person.actor_id} a standing permission on ${p.capability}.`
          : `${person.actor_id} already holds ${p.capability}.`,
      'capability',
    );
    if (r) {
      setCapability('');
      onChange();
    }
  };
  const confirmRevoke = async () => {
    const cap = revoking;
    setRevoking(null);
    if (cap === null) return;
    if (
      await revoke.send(
        '/api/permissions/revoke',
        { actor_id: person.actor_id, capability: cap },
        () =>
          `Revoked ${person.actor_id}'s standing permission on ${cap}; new decisions are refused at once.`,
      )
    )
      onChange();
  };
  return (
    <>
      <h3>Standing permissions</h3>
      {person.permissions.length === 0 ? (
        <p class="empty" id="no-permissions">
          No standing permissions{admin ? ': grant one below.' : '.'}
        </p>
      ) : (
        <div class="table-wrap">
          <table class="permissions">
            <thead>
              <tr>
                <th>Capability</th>
                <th>Granted</th>
                {admin && <th>Action</th>}
              </tr>
            </thead>
            <tbody>
              {person.permissions.map((p) => (
                <tr key={p.capability} data-capability={p.capability}>
                  <td>{p.capability}</td>
                  <td>
                    <When iso={p.granted_at} />
                  </td>
                  {admin && (
                    <RevokeCell
                      show
                      label={`revoke ${p.capability}`}
                      onRevoke={() => setRevoking(p.capability)}
                    />
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Outcome state={revoke.state} fields={[]} />
      {admin && (
        <form class="card admin-form" id="grant-permission" onSubmit={submit}>
          <Field
            id="grant-capability"
            label="Grant a standing permission on"
            field="capability"
            state={grant.state}
          >
            {(a) => (
              <select
                {...a}
                value={capability}
                onChange={(e) => setCapability((e.target as HTMLSelectElement).value)}
                required
              >
                <option value="">choose a capability…</option>
                {(caps.data?.items ?? [])
                  .filter((c) => !held.has(c.name))
                  .map((c) => (
                    <option key={c.name} value={c.name}>
                      {c.name}
                    </option>
                  ))}
              </select>
            )}
          </Field>
          <button class="primary" type="submit" disabled={grant.state.busy}>
            Grant
          </button>
          <Outcome state={grant.state} fields={['capability']} />
        </form>
      )}
      {revoking !== null && (
        <Confirm
          title={`Revoke ${person.actor_id}'s permission on ${revoking}?`}
          action="Revoke permission"
          onConfirm={() => void confirmRevoke()}
          onCancel={() => setRevoking(null)}
        >
          <p>
            New decisions that rely on it are refused at once. An entitlement the actor holds is not touched.
          </p>
        </Confirm>
      )}
    </>
  );
}
