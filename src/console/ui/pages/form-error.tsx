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
