import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Field, Outcome, useWrite } from './admin-form.js';

/** A capability as `/api/capabilities` lists it. */
export interface CapabilityRow {
  name: string;
  tier: number;
  irreversible: boolean;
  custody: 'grant' | 'brokered' | 'pass_through';
  actions: string[];
  default_amount_usd: number;
  requestable: boolean;
  approvers: string[];
  owners: string[];
  surface_id: string | null;
  operation: string | null;
}

const BLANK = {
  name: '',
  tier: '1',
  actions: '',
  irreversible: false,
  custody: 'grant',
  cost_usd: '',
  requestable: false,
  approvers: '',
  owners: '',
  surface: '',
  operation: '',
};
type Draft = typeof BLANK;

const FIELDS = [
  'name',
  'tier',
  'actions',
  'custody',
  'cost_usd',
  'approvers',
  'owners',
  'surface',
  'operation',
];
const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

function draftOf(c: CapabilityRow): Draft {
  return {
    name: c.name,
    tier: String(c.tier),
    actions: c.actions.join(', '),
    irreversible: c.irreversible,
    custody: c.custody,
    cost_usd: String(c.default_amount_usd),
    requestable: c.requestable,
    approvers: c.approvers.join(', '),
    owners: c.owners.join(', '),
    surface: c.surface_id ?? '',
    operation: c.operation ?? '',
  };
}

/**
 * Register a capability, or edit one: the form is the whole registration, as the flags of
 * `svc capability register` are, so a field left empty is cleared.
 */
export function CapabilityForm({ editing, onSaved }: { editing: CapabilityRow | null; onSaved: () => void }) {
  const [d, setD] = useState<Draft>(() => (editing ? draftOf(editing) : BLANK));
  const { state, send, reset } = useWrite();
  // Only a change of what is edited resets the form: the first render already shows it, and
  // a reset after mount would wipe what was typed before the effect ran. A layout effect, so
  // the reset lands in the commit that shows the new capability, before anything is typed.
  const shown = useRef(editing);
  useLayoutEffect(() => {
    if (shown.current === editing) return;
    shown.current = editing;
    setD(editing ? draftOf(editing) : BLANK);
    reset();
    if (editing) document.getElementById('capability-form')?.scrollIntoView({ block: 'nearest' });
  }, [editing]);
  const set = (k: keyof Draft) => (e: Event) => {
    const t = e.target as HTMLInputElement;
    setD({ ...d, [k]: t.type === 'checkbox' ? t.checked : t.value });
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    const cost = d.cost_usd.trim();
    const r = await send<{ name: string; result: string; changed: string[] }>(
      '/api/capabilities',
      {
        name: d.name.trim(),
        tier: Number(d.tier),
        actions: list(d.actions),
        irreversible: d.irreversible,
        custody: d.custody,
        ...(cost ? { cost_usd: Number(cost) } : {}),
        requestable: d.requestable,
        approvers: list(d.approvers),
        owners: list(d.owners),
        ...(d.surface.trim() ? { surface: d.surface.trim() } : {}),
        ...(d.operation.trim() ? { operation: d.operation.trim() } : {}),
      },
      (c) =>
        c.result === 'created'
          ? `Registered ${c.name}.`
          : c.result === 'updated'
            ? `Updated ${c.name}: ${c.changed.join(', ')} changed.`
            : `${c.name} is already registered exactly so.`,
    );
    if (r) onSaved();
  };
  const text = (id: string, label: string, k: keyof Draft, hint?: string) => (
    <Field id={`cap-${id}`} label={label} field={k} state={state} {...(hint ? { hint } : {})}>
      {(a) => <input {...a} value={d[k] as string} onInput={set(k)} autocomplete="off" />}
    </Field>
  );
  return (
    <form class="card admin-form" id="capability-form" onSubmit={submit}>
      <h3>{editing ? `Edit ${editing.name}` : 'Register a capability'}</h3>
      <div class="form-grid">
        <Field id="cap-name" label="Name" field="name" state={state} hint="such as crm.contacts">
          {(a) => <input {...a} value={d.name} onInput={set('name')} readOnly={editing !== null} required />}
        </Field>
        <Field id="cap-tier" label="Risk tier" field="tier" state={state} hint="0 to 9">
          {(a) => (
            <input {...a} type="number" min={0} max={9} value={d.tier} onInput={set('tier')} required />
          )}
        </Field>
        {text('actions', 'Actions', 'actions', 'verbs, comma separated: read, write')}
        {text('cost', 'Default amount (USD)', 'cost_usd', 'reserved when a request names none; default 0')}
        <Field
          id="cap-custody"
          label="Custody"
          field="custody"
          state={state}
          hint="grant: the caller acts; brokered: the daemon executes; pass_through: observed only"
        >
          {(a) => (
            <select {...a} value={d.custody} onChange={set('custody')}>
              <option value="grant">grant</option>
              <option value="brokered">brokered</option>
              <option value="pass_through">pass_through</option>
            </select>
          )}
        </Field>
        {text('approvers', 'Named approvers', 'approvers', 'registered humans, comma separated')}
        {text('owners', 'Owners', 'owners', 'receive access-request cards')}
        {d.custody === 'brokered' && text('surface', 'Surface', 'surface')}
        {d.custody === 'brokered' && text('operation', 'Operation', 'operation')}
      </div>
      <div class="row">
        <label class="check">
          <input type="checkbox" checked={d.irreversible} onChange={set('irreversible')} /> Irreversible:
          every use needs a human approval
        </label>
        <label class="check">
          <input type="checkbox" checked={d.requestable} onChange={set('requestable')} /> Requestable: listed
          in the catalogue
        </label>
      </div>
      <div class="row">
        <button class="primary" type="submit" disabled={state.busy}>
          {editing ? 'Save' : 'Register'}
        </button>
      </div>
      <Outcome state={state} fields={FIELDS} />
    </form>
  );
}
