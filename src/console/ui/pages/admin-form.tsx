import type { ComponentChildren } from 'preact';
import { ApiFailure, describe } from '../api.js';

/** A refusal as the page shows it: its text, and the request field it names (if any). */
export interface FormError {
  text: string;
  field?: string;
}

export function formError(err: unknown): FormError {
  return {
    text: describe(err),
    ...(err instanceof ApiFailure && err.error.field ? { field: err.error.field } : {}),
  };
}

/**
 * The refusal beside the field it names (`for` one of `fields`), or under the form when it
 * names none of them; one line per line of the reason (a policy's diagnostics are lines).
 */
export function FieldError({
  error,
  field,
  fields,
  id,
}: {
  error: FormError | undefined;
  field?: string;
  fields?: readonly string[];
  id: string;
}) {
  if (!error) return null;
  const mine =
    field !== undefined
      ? error.field === field
      : error.field === undefined || !(fields ?? []).includes(error.field);
  if (!mine) return null;
  return (
    <div class="error field-error" role="alert" id={id} data-field={error.field}>
      {error.text.split('\n').map((line, i) => (
        <div key={i}>{line}</div>
      ))}
    </div>
  );
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
