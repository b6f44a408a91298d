import { useState } from 'preact/hooks';
import { Confirm, Field, Outcome, RevokeCell, useWrite } from './admin-form.js';
import { Id, When } from './common.js';
import type { Person, TokenRow } from './person-view.js';

interface Issued {
  token_id: string;
  token: string;
  expires_at: string;
}

const STATE_PILL = { active: 'ok', expired: 'warn', revoked: 'bad' } as const;

/** A person's tokens by public id; an administrator issues (shown once) and revokes them. */
export function PersonTokens({
  person,
  admin,
  onChange,
}: {
  person: Person;
  admin: boolean;
  onChange: () => void;
}) {
  const [form, setForm] = useState({ ttl: '', label: '' });
  // The secret lives here only while the dialog is open; closing it drops the only copy.
  const [issued, setIssued] = useState<Issued | null>(null);
  const [copied, setCopied] = useState(false);
  const [revoking, setRevoking] = useState<TokenRow | null>(null);
  const issue = useWrite();
  const revoke = useWrite();
  const submit = async (e: Event) => {
    e.preventDefault();
    const r = await issue.send<Issued>(
      '/api/tokens',
      {
        actor_id: person.actor_id,
        ...(form.ttl.trim() ? { ttl: form.ttl.trim() } : {}),
        ...(form.label.trim() ? { label: form.label.trim() } : {}),
      },
      (t) => `Issued token ${t.token_id} for ${person.actor_id}.`,
    );
    if (r) {
      setIssued({ token_id: r.token_id, token: r.token, expires_at: r.expires_at });
      setCopied(false);
      setForm({ ttl: '', label: '' });
      onChange();
    }
  };
  const close = () => {
    setIssued(null);
    setCopied(false);
  };
  const copy = () => {
    if (issued) void navigator.clipboard?.writeText(issued.token).then(() => setCopied(true));
  };
  const confirmRevoke = async () => {
    const t = revoking;
    setRevoking(null);
    if (t === null) return;
    if (
      await revoke.send(
        `/api/tokens/${encodeURIComponent(t.token_id)}/revoke`,
        {},
        () => `Revoked token ${t.token_id}; it is refused from the next request on.`,
      )
    )
      onChange();
  };
  return (
    <>
      <h3>Tokens</h3>
      {person.tokens.length === 0 ? (
        <p class="empty" id="no-tokens">
          No tokens{admin ? ': issue one below.' : '.'}
        </p>
      ) : (
        <div class="table-wrap">
          <table class="tokens">
            <thead>
              <tr>
                <th>Token id</th>
                <th>Label</th>
                <th>State</th>
                <th>Created</th>
                <th>Expires</th>
                <th>Revoked</th>
                {admin && <th>Action</th>}
              </tr>
            </thead>
            <tbody>
              {person.tokens.map((t) => (
                <tr key={t.token_id} data-token={t.token_id}>
                  <td>
                    <Id value={t.token_id} label="token id" />
                  </td>
                  <td>{t.label ?? '–'}</td>
                  <td>
                    <span class={`pill ${STATE_PILL[t.state]}`}>{t.state}</span>
                  </td>
                  <td>
                    <When iso={t.created_at} />
                  </td>
                  <td>
                    <When iso={t.expires_at} />
                  </td>
                  <td>{t.revoked_at ? <When iso={t.revoked_at} /> : '–'}</td>
                  {admin && (
                    <RevokeCell
                      show={t.state === 'active'}
                      label={`revoke token ${t.token_id}`}
                      onRevoke={() => setRevoking(t)}
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
        <form class="card admin-form" id="issue-token" onSubmit={submit}>
          <div class="form-grid">
            <Field
              id="token-ttl"
              label="Lifetime"
              field="ttl"
              state={issue.state}
              hint="such as 90d, 12h or 30m; default 90d"
            >
              {(a) => (
                <input
                  {...a}
                  value={form.ttl}
                  placeholder="90d"
                  onInput={(e) => setForm({ ...form, ttl: (e.target as HTMLInputElement).value })}
                />
              )}
            </Field>
            <Field
              id="token-label"
              label="Label (optional)"
              field="label"
              state={issue.state}
              hint="to recognise it by later"
            >
              {(a) => (
                <input
                  {...a}
                  value={form.label}
                  onInput={(e) => setForm({ ...form, label: (e.target as HTMLInputElement).value })}
                />
              )}
            </Field>
          </div>
          <button class="primary" type="submit" disabled={issue.state.busy}>
            Issue a token
          </button>
          <Outcome state={issue.state} fields={['ttl', 'label']} />
        </form>
      )}
      {issued && (
        <div class="modal" role="dialog" aria-modal="true" aria-labelledby="issued-title">
          <div class="card wide" id="issued-token-dialog">
            <h3 id="issued-title">Token for {person.actor_id}</h3>
            <p class="warning">
              Copy it now: it will not be shown again. Only its hash is stored; if it is lost, revoke it and
              issue another.
            </p>
            <code class="secret" id="issued-token">
              {issued.token}
            </code>
            <dl class="facts compact">
              <dt>Token id</dt>
              <dd>{issued.token_id}</dd>
              <dt>Expires</dt>
              <dd>
                <When iso={issued.expires_at} />
              </dd>
            </dl>
            <div class="row">
              <button class="primary" id="copy-token" onClick={copy}>
                {copied ? 'Copied' : 'Copy token'}
              </button>
              <button id="close-token" onClick={close}>
                Done, close
              </button>
            </div>
          </div>
        </div>
      )}
      {revoking !== null && (
        <Confirm
          title={`Revoke token ${revoking.token_id}?`}
          action="Revoke token"
          onConfirm={() => void confirmRevoke()}
          onCancel={() => setRevoking(null)}
        >
          <p>
            {person.actor_id} can no longer use it from the next request on, and any console session signed in
            with it ends. This cannot be undone.
          </p>
        </Confirm>
      )}
    </>
  );
}
