import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ApiFailure, describe, post } from '../api.js';

/** What a write left: its result line, or its error and the field the server named. */
export interface WriteState {
  busy: boolean;
  done?: string;
  error?: string;
  field?: string;
}

/**
 * Send one administrative write. The server's error lands next to the field it names
 * (`fieldOf` maps a field the form has no input for, such as a 404's actor, to one it has);
 * anything else shows under the form.
 */
export function useWrite(): {
  state: WriteState;
  send: <T>(url: string, body: unknown, done: (r: T) => string, field?: string) => Promise<T | undefined>;
  reset: () => void;
} {
  const [state, setState] = useState<WriteState>({ busy: false });
  const send = async <T,>(url: string, body: unknown, done: (r: T) => string, field?: string) => {
    setState({ busy: true });
    try {
      const r = await post<T>(url, body);
      setState({ busy: false, done: done(r) });
      return r;
    } catch (err) {
      const named = err instanceof ApiFailure ? (err.error.field ?? field) : undefined;
      setState({ busy: false, error: describe(err), ...(named !== undefined ? { field: named } : {}) });
      return undefined;
    }
  };
  return { state, send, reset: () => setState({ busy: false }) };
}

/** A labelled control with the server's error for its field right under it. */
export function Field({
  id,
  label,
  field,
  state,
  hint,
  children,
}: {
  id: string;
  label: string;
  field: string;
  state: WriteState;
  hint?: string;
  children: (aria: Record<string, string | boolean>) => ComponentChildren;
}) {
  const bad = state.field === field && state.error !== undefined;
  const describedBy = [hint ? `${id}-hint` : '', bad ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children({
        id,
        ...(bad ? { 'aria-invalid': 'true' } : {}),
        ...(describedBy ? { 'aria-describedby': describedBy } : {}),
      })}
      {hint && (
        <span class="hint muted" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      {bad && (
        <span class="field-error error" id={`${id}-error`} role="alert">
          {state.error}
        </span>
      )}
    </div>
  );
}

/** The result of a write, or an error no field of the form owns. */
export function Outcome({ state, fields }: { state: WriteState; fields: string[] }) {
  if (state.done)
    return (
      <p class="notice" role="status">
        {state.done}
      </p>
    );
  if (state.error && (state.field === undefined || !fields.includes(state.field))) {
    return (
      <p class="error" role="alert">
        {state.error}
      </p>
    );
  }
  return null;
}

/** A question that must be answered before a change that cannot be undone is sent. */
export function Confirm({
  title,
  children,
  action,
  busy,
  onConfirm,
  onCancel,
}: {
  title: string;
  children: ComponentChildren;
  action: string;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <div class="modal" role="dialog" aria-modal="true" aria-labelledby="admin-confirm-title">
      <div class="card wide">
        <h3 id="admin-confirm-title">{title}</h3>
        {children}
        <div class="row">
          <button id="admin-confirm" class="danger" disabled={busy === true} onClick={onConfirm}>
            {action}
          </button>
          <button id="admin-cancel" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </div>
    </div>
  );
}

/** A row's Revoke button in its table's actions column; `show` false leaves the cell empty. */
export function RevokeCell({
  show,
  label,
  onRevoke,
}: {
  show: boolean;
  label: string;
  onRevoke: () => void;
}) {
  return (
    <td class="actions">
      {show && (
        <button class="danger" onClick={onRevoke} aria-label={label}>
          Revoke
        </button>
      )}
    </td>
  );
}
