import { SvcError } from './errors.js';

/**
 * Text the API refuses inside any string or key: a lone surrogate (evidence-format.md §1),
 * and U+0000, which PostgreSQL's text cannot hold while SQLite's can: refused at the edge,
 * so both stores answer alike (400 naming the field) and neither is asked to store it.
 */
export function isAcceptedText(text: string): boolean {
  return text.isWellFormed() && !text.includes('\u0000');
}

export interface RefusedText {
  path: string;
  /** true for U+0000 in well-formed text, false for a lone surrogate */
  nul: boolean;
}

const refused = (text: string, path: string): RefusedText | undefined =>
  isAcceptedText(text) ? undefined : { path, nul: text.isWellFormed() };

/** A key as a field name: printable, whatever was sent in it. */
const keyName = (k: string) => (isAcceptedText(k) ? k : '(key)');

export function firstRefusedText(value: unknown, path: string): RefusedText | undefined {
  if (typeof value === 'string') return refused(value, path);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = firstRefusedText(value[i], `${path}.${i}`);
      if (bad) return bad;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const inKey = refused(k, `${path}.${keyName(k)}`);
      if (inKey) return inKey;
      const bad = firstRefusedText(v, path === '' ? k : `${path}.${k}`);
      if (bad) return bad;
    }
  }
  return undefined;
}

/** The path of the first string or key the API refuses (see `isAcceptedText`). */
export function firstMalformedString(value: unknown, path: string): string | undefined {
  return firstRefusedText(value, path)?.path;
}

/** The 400 for text `isAcceptedText` refuses, naming the field it was sent in. */
export function refusedTextError(field: string, nul: boolean): SvcError {
  return new SvcError(
    'invalid_request',
    nul
      ? `${field}: expected text without NUL (U+0000)`
      : `${field}: expected well-formed Unicode text (a lone surrogate was sent)`,
    { field },
  );
}
