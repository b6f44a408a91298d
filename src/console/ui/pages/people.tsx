import { useState } from 'preact/hooks';
import type { Session } from '../api.js';
import { Field, Outcome, useWrite } from './admin-form.js';
import { Loading, useJson, When } from './common.js';
import { PersonPage } from './person.js';
import type { Person } from './person-view.js';

const KINDS = [
  ['', 'Everyone'],
  ['human', 'Humans'],
  ['agent', 'Agents'],
  ['service', 'Services'],
] as const;
const ROLES = ['operator', 'administrator', 'approver', 'manager', 'auditor'] as const;

/** `#/people/<actor id>` opens one person; `#/people` (and the old `#/agents`) the list. */
function personInHash(): string | undefined {
  const m = /^#\/?people\/(.+)$/.exec(location.hash);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return m[1];
  }
}

export function PeoplePage({ session }: { session: Session }) {
  const id = personInHash();
  // keyed by the actor: another person starts with no result or error of the previous one
  if (id !== undefined) return <PersonPage key={id} session={session} actorId={id} />;
  return <PeopleList session={session} />;
}

function PeopleList({ session }: { session: Session }) {
  const [kind, setKind] = useState('');
  const { data, error, reload } = useJson<{ items: Person[] }>(`/api/people${kind ? `?kind=${kind}` : ''}`);
  const admin = session.roles.includes('administrator');
  return (
    <section>
      <h2>People</h2>
      <p class="muted">
        Humans, agents and services of this tenant, with their tokens (by public id: a token's secret is shown
        once, when it is issued) and standing permissions. Open one to see entitlements, issue or revoke
        tokens and grant permissions.
      </p>
      <div class="filters">
        <label class="inline" for="people-kind">
          Kind
        </label>
        <select
          id="people-kind"
          value={kind}
          onChange={(e) => setKind((e.target as HTMLSelectElement).value)}
        >
          {KINDS.map(([v, l]) => (
            <option key={v} value={v}>
              {l}
            </option>
          ))}
        </select>
      </div>
      {!data ? (
        <Loading error={error} />
      ) : data.items.length === 0 ? (
        <p class="empty" id="no-people">
          No {kind ? `${kind}s` : 'one'} yet.{' '}
          {admin ? 'Add one below.' : 'An administrator adds people here or with `svc actor add`.'}
        </p>
      ) : (
        <div class="table-wrap">
          <table class="people">
            <thead>
              <tr>
                <th>Actor</th>
                <th>Kind</th>
                <th>Roles</th>
                <th>Manager</th>
                <th>Active tokens</th>
                <th>Standing permissions</th>
                <th>Registered</th>
              </tr>
            </thead>
            <tbody>
              {data.items.map((p) => (
                <tr key={p.actor_id} data-actor={p.actor_id}>
                  <td class="actor">
                    <a href={`#/people/${encodeURIComponent(p.actor_id)}`}>{p.display_name ?? p.actor_id}</a>
                    {p.display_name && <span class="muted"> ({p.actor_id})</span>}
                  </td>
                  <td>{p.kind}</td>
                  <td>{p.roles.join(', ') || '–'}</td>
                  <td>
                    {p.manager ? <a href={`#/people/${encodeURIComponent(p.manager)}`}>{p.manager}</a> : '–'}
                  </td>
                  <td class="num">{p.tokens.filter((t) => t.state === 'active').length}</td>
                  <td>{p.permissions.map((x) => x.capability).join(', ') || '–'}</td>
                  <td>
                    <When iso={p.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {admin ? (
        <AddPerson humans={(data?.items ?? []).filter((p) => p.kind === 'human')} onAdded={reload} />
      ) : (
        <p class="muted">Administrators add people and issue tokens.</p>
      )}
    </section>
  );
}

const FIELDS = ['actor_id', 'kind', 'roles', 'manager', 'display_name'];

function AddPerson({ humans, onAdded }: { humans: Person[]; onAdded: () => void }) {
  const blank = { actor_id: '', kind: 'human', roles: [] as string[], manager: '', display_name: '' };
  const [f, setF] = useState(blank);
  const { state, send } = useWrite();
  const submit = async (e: Event) => {
    e.preventDefault();
    const r = await send<{ actor_id: string; kind: string }>(
      '/api/actors',
      {
        actor_id: f.actor_id.trim(),
        kind: f.kind,
        ...(f.kind === 'human' ? { roles: f.roles } : {}),
        ...(f.kind === 'agent' ? { manager: f.manager || null } : {}),
        ...(f.display_name.trim() ? { display_name: f.display_name.trim() } : {}),
      },
      (a) => `Added ${a.kind} ${a.actor_id}. Issue it a token from its page.`,
    );
    if (r) {
      setF(blank);
      onAdded();
    }
  };
  const set = (k: keyof typeof blank) => (e: Event) =>
    setF({ ...f, [k]: (e.target as HTMLInputElement).value });
  return (
    <form class="card admin-form" id="add-person" onSubmit={submit}>
      <h3>Add a person, agent or service</h3>
      <div class="form-grid">
        <Field
          id="person-id"
          label="Actor id"
          field="actor_id"
          state={state}
          hint="lowercase letters, digits, . _ -"
        >
          {(a) => <input {...a} value={f.actor_id} onInput={set('actor_id')} required autocomplete="off" />}
        </Field>
        <Field id="person-kind" label="Kind" field="kind" state={state}>
          {(a) => (
            <select {...a} value={f.kind} onChange={set('kind')}>
              <option value="human">human</option>
              <option value="agent">agent</option>
              <option value="service">service</option>
            </select>
          )}
        </Field>
        <Field id="person-name" label="Display name (optional)" field="display_name" state={state}>
          {(a) => <input {...a} value={f.display_name} onInput={set('display_name')} />}
        </Field>
        {f.kind === 'agent' && (
          <Field
            id="person-manager"
            label="Accountable manager"
            field="manager"
            state={state}
            hint="a registered human"
          >
            {(a) => (
              <select {...a} value={f.manager} onChange={set('manager')}>
                <option value="">choose a human…</option>
                {humans.map((h) => (
                  <option key={h.actor_id} value={h.actor_id}>
                    {h.actor_id}
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}
      </div>
      {f.kind === 'human' && (
        <fieldset class="roles" aria-describedby={state.field === 'roles' ? 'person-roles-error' : undefined}>
          <legend>Roles</legend>
          {ROLES.map((r) => (
            <label key={r} class="check">
              <input
                type="checkbox"
                checked={f.roles.includes(r)}
                onChange={(e) =>
                  setF({
                    ...f,
                    roles: (e.target as HTMLInputElement).checked
                      ? [...f.roles, r]
                      : f.roles.filter((x) => x !== r),
                  })
                }
              />
              {r}
            </label>
          ))}
          {state.field === 'roles' && state.error && (
            <span class="field-error error" id="person-roles-error" role="alert">
              {state.error}
            </span>
          )}
        </fieldset>
      )}
      <div class="row">
        <button class="primary" type="submit" disabled={state.busy}>
          Add
        </button>
      </div>
      <Outcome state={state} fields={FIELDS} />
    </form>
  );
}
