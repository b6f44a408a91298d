import { useState } from 'preact/hooks';
import { post } from '../api.js';
import { Confirm } from './admin-form.js';
import { FieldError, formError, type FormError } from './form-error.js';
import { Id, When } from './common.js';

type Kind = 'webhook' | 'chat' | 'collab' | 'email';

interface Added {
  destination_id: string;
  kind: Kind;
  secret: string | null;
}

interface TestResult {
  destination_id: string;
  event_id: string;
  event_type: string;
  outcome: 'delivered' | 'gone' | 'retry' | 'refused';
  status: number | null;
  error: string | null;
}

type FieldName =
  | 'destination_id'
  | 'url'
  | 'events'
  | 'secret'
  | 'channel'
  | 'conversation'
  | 'client_id'
  | 'token_url'
  | 'scope'
  | 'from'
  | 'to'
  | 'smtp_user'
  | 'console_url'
  | 'remind_after'
  | 'escalate_to';

/** The fields a kind asks for besides id, events and the reminder, with what each is. */
const KIND_FIELDS: Record<Kind, [FieldName, string, string][]> = {
  webhook: [['url', 'Receiver URL (https)', 'https://hooks.example.org/svc']],
  chat: [
    ['channel', 'Channel id', 'C0123ABCD'],
    ['secret', 'Bot token (sealed, never shown again)', ''],
    ['url', 'Web API base (optional)', 'https://slack.com/api'],
  ],
  collab: [
    ['url', 'Connector service URL', 'https://smba.trafficmanager.net/teams/'],
    ['conversation', 'Conversation id', ''],
    ['client_id', 'Bot application (client) id', ''],
    ['secret', 'Client secret (sealed, never shown again)', ''],
    ['token_url', 'Token endpoint (optional)', ''],
    ['scope', 'Scope (optional)', ''],
  ],
  email: [
    ['url', 'SMTP server', 'smtp://mail.example.org:587'],
    ['from', 'From address', 'svc@example.org'],
    ['to', 'To addresses (comma-separated)', 'approvers@example.org'],
    ['console_url', 'Console URL, for the link to the approval', 'https://svc.example.org:8443'],
    ['smtp_user', 'SMTP user (optional)', ''],
    ['secret', 'SMTP password (with a user; sealed, never shown again)', ''],
  ],
};
const ALL_FIELDS: FieldName[] = [
  'destination_id',
  'events',
  'remind_after',
  'escalate_to',
  ...new Set(Object.values(KIND_FIELDS).flatMap((fs) => fs.map(([f]) => f))),
];

const list = (s: string) =>
  s
    .split(/[\s,]+/)
    .map((x) => x.trim())
    .filter((x) => x !== '');

/** The request body: what was typed, empty fields left out, lists split. */
function bodyOf(kind: Kind, v: Partial<Record<FieldName, string>>): Record<string, unknown> {
  const body: Record<string, unknown> = { kind, events: list(v.events ?? '') };
  for (const f of ['destination_id', 'remind_after', 'escalate_to', ...KIND_FIELDS[kind].map(([f]) => f)]) {
    const value = v[f as FieldName]?.trim() ?? '';
    if (value === '' || f === 'events') continue;
    body[f] = f === 'to' ? list(value) : value;
  }
  return body;
}

/**
 * Adding a destination: the fields of its kind, each refusal beside its field. A secret typed
 * here goes to the server once and is sealed there; a webhook's signing secret, made by the
 * server, is shown once here and never again.
 */
export function AddDestination({ onAdded }: { onAdded: (message: string) => void }) {
  const [kind, setKind] = useState<Kind>('webhook');
  const [values, setValues] = useState<Partial<Record<FieldName, string>>>({ events: 'approval.*' });
  const [error, setError] = useState<FormError | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [shown, setShown] = useState<Added | undefined>(undefined);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      const added = await post<Added>('/api/notifications/destinations', bodyOf(kind, values));
      setError(undefined);
      setShown(added.secret === null ? undefined : added);
      setValues({ events: 'approval.*' });
      onAdded(`Added ${added.kind} destination ${added.destination_id}.`);
    } catch (err) {
      setError(formError(err));
    } finally {
      setBusy(false);
    }
  };
  const field = (name: FieldName, label: string, placeholder = '') => (
    <div class="field" key={name}>
      <label for={`dest-${name}`}>{label}</label>
      <input
        id={`dest-${name}`}
        type={name === 'secret' ? 'password' : 'text'}
        autoComplete={name === 'secret' ? 'new-password' : 'off'}
        placeholder={placeholder}
        value={values[name] ?? ''}
        aria-invalid={error?.field === name}
        onInput={(ev) => setValues({ ...values, [name]: (ev.target as HTMLInputElement).value })}
      />
      <FieldError error={error} field={name} id={`dest-${name}-error`} />
    </div>
  );

  return (
    <div class="card" id="add-destination">
      {shown && (
        <div class="notice secret-once" role="status" id="webhook-secret">
          <p>
            The signing secret of <strong>{shown.destination_id}</strong>, shown this once: give it to the
            receiver now (it verifies each delivery with it). It cannot be read again; a new one comes from{' '}
            <code>svc notify rotate</code>.
          </p>
          <Id value={shown.secret as string} label="signing secret" />
          <button id="secret-done" onClick={() => setShown(undefined)}>
            I have kept it
          </button>
        </div>
      )}
      <form onSubmit={submit} class="admin-form">
        <div class="field">
          <label for="dest-kind">Kind</label>
          <select
            id="dest-kind"
            value={kind}
            onChange={(ev) => setKind((ev.target as HTMLSelectElement).value as Kind)}
          >
            <option value="webhook">webhook (Standard Webhooks, signed)</option>
            <option value="chat">team chat</option>
            <option value="collab">collaboration suite</option>
            <option value="email">email</option>
          </select>
        </div>
        {field('destination_id', 'Destination id', 'ops-hook')}
        {KIND_FIELDS[kind].map(([name, label, placeholder]) => field(name, label, placeholder))}
        {field('events', 'Events (types, families such as approval.*, or *)', 'approval.*')}
        {field('remind_after', 'Remind of a pending approval after (optional)', '30m')}
        {field('escalate_to', 'Also remind this destination (optional)', '')}
        <FieldError error={error} fields={ALL_FIELDS} id="add-destination-error" />
        <div class="row">
          <button type="submit" class="primary" id="add-destination-submit" disabled={busy}>
            Add destination
          </button>
        </div>
      </form>
    </div>
  );
}

interface Rotated {
  secret: string | null;
  previous_valid_until: string | null;
}

/**
 * A destination's new secret: a webhook's is made by the server and shown here once (the old
 * one still signs for 24 hours); the other kinds' is typed in, sealed, and never shown again.
 */
function RotateSecret({ id, kind, onClose }: { id: string; kind: string; onClose: () => void }) {
  const [secret, setSecret] = useState('');
  const [error, setError] = useState<FormError | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [rotated, setRotated] = useState<Rotated | undefined>(undefined);
  const webhook = kind === 'webhook';
  const rotate = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      setRotated(
        await post<Rotated>(
          `/api/notifications/destinations/${encodeURIComponent(id)}/rotate`,
          webhook ? {} : { secret },
        ),
      );
      setSecret('');
      setError(undefined);
    } catch (err) {
      setError(formError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="modal" role="dialog" aria-modal="true" aria-labelledby="rotate-title">
      <div class="card wide" id="rotate-secret">
        <h3 id="rotate-title">Replace the secret of {id}?</h3>
        {rotated ? (
          <div role="status">
            {rotated.secret !== null ? (
              <>
                <p>
                  The new signing secret, shown this once; the old one also signs until{' '}
                  <When iso={rotated.previous_valid_until} />, so the receiver can move to the new one.
                </p>
                <Id value={rotated.secret} label="signing secret" />
              </>
            ) : (
              <p>The new secret is sealed; the old one no longer works.</p>
            )}
            <div class="row">
              <button id="rotate-done" onClick={onClose}>
                Done
              </button>
            </div>
          </div>
        ) : (
          <form onSubmit={rotate}>
            {webhook ? (
              <p>
                svc makes a new signing secret and shows it once; deliveries carry a signature with both the
                old and the new one for 24 hours. The same as <code>svc notify rotate {id}</code>.
              </p>
            ) : (
              <>
                <label for="rotate-secret-input">
                  The new secret (sealed on the server, never shown again)
                </label>
                <input
                  id="rotate-secret-input"
                  type="password"
                  autoComplete="new-password"
                  value={secret}
                  aria-invalid={error?.field === 'secret'}
                  onInput={(ev) => setSecret((ev.target as HTMLInputElement).value)}
                />
              </>
            )}
            <FieldError error={error} id="rotate-error" />
            <div class="row">
              <button type="submit" id="rotate-confirm" class="danger" disabled={busy}>
                Replace the secret
              </button>
              <button type="button" onClick={onClose}>
                Cancel
              </button>
            </div>
          </form>
        )}
      </div>
    </div>
  );
}

/** Send a test, replace the secret, or remove (asked again first): an administrator's, in the row. */
export function DestinationActions({
  id,
  kind,
  onChanged,
}: {
  id: string;
  kind: string;
  onChanged: (message: string) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [rotating, setRotating] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | undefined>(undefined);
  const url = `/api/notifications/destinations/${encodeURIComponent(id)}`;

  const test = async () => {
    setBusy(true);
    try {
      const r = await post<TestResult>(`${url}/test`, {});
      const answer = r.status === null ? r.error : `${r.status}${r.error === null ? '' : ` (${r.error})`}`;
      setResult({ ok: r.outcome === 'delivered', text: `Test ${r.event_type}: ${r.outcome}, ${answer}` });
    } catch (err) {
      setResult({ ok: false, text: formError(err).text });
    } finally {
      setBusy(false);
    }
  };
  const remove = async () => {
    setBusy(true);
    try {
      await post(`${url}/remove`, {});
      setConfirming(false);
      onChanged(`Removed destination ${id} and its secret; its undelivered events end as disabled.`);
    } catch (err) {
      setConfirming(false);
      setResult({ ok: false, text: formError(err).text });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="destination-admin">
      <button class="test-destination" disabled={busy} onClick={() => void test()}>
        Send test
      </button>{' '}
      <button class="rotate-destination" disabled={busy} onClick={() => setRotating(true)}>
        Rotate secret…
      </button>{' '}
      <button class="remove-destination danger" disabled={busy} onClick={() => setConfirming(true)}>
        Remove…
      </button>
      {rotating && <RotateSecret id={id} kind={kind} onClose={() => setRotating(false)} />}
      {result && (
        <p class={result.ok ? 'notice test-result' : 'error test-result'} role="status">
          {result.text}
        </p>
      )}
      {confirming && (
        <Confirm
          title={`Remove destination ${id}?`}
          action="Remove it"
          busy={busy}
          onConfirm={() => void remove()}
          onCancel={() => setConfirming(false)}
        >
          <p>
            Its secret is deleted and its undelivered events end as disabled; nothing more is sent to it. The
            same as <code>svc notify remove {id}</code>.
          </p>
        </Confirm>
      )}
    </div>
  );
}
