import { useEffect, useState } from 'preact/hooks';
import { describe, get } from '../api.js';

/** Load JSON from the console API once (and again when `deps` change). */
export function useJson<T>(
  url: string,
  deps: unknown[] = [],
): { data?: T; error?: string; reload: () => void } {
  const [state, setState] = useState<{ data?: T; error?: string }>({});
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    get<T>(url).then(
      (data) => live && setState({ data }),
      (err) => live && setState({ error: describe(err) }),
    );
    return () => {
      live = false;
    };
  }, [url, tick, ...deps]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}

export function Loading({ error }: { error?: string | undefined }) {
  return error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : (
    <p class="muted">Loading…</p>
  );
}

export const usd = (n: number) =>
  `$${n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 })}`;
export const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '–');
export const short = (hex: string) => `${hex.slice(0, 12)}…`;

/** `2026-11-27T10:15:02Z` with the viewer's local time beside it: unambiguous and readable. */
export function When({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span class="muted">–</span>;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return <span>{iso}</span>;
  const utc = d.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return (
    <time dateTime={utc} title={d.toLocaleString()}>
      {utc} <span class="muted">({d.toLocaleString()})</span>
    </time>
  );
}

/**
 * A long id shown whole when it fits and cut with an ellipsis when it does not (never
 * wrapped at its hyphens), with a button that copies the whole id.
 */
export function Id({ value, label }: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = () => {
    void navigator.clipboard?.writeText(value).then(() => {
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    });
  };
  return (
    <span class="id">
      <code class="id-text" title={value}>
        {value}
      </code>
      <button type="button" class="id-copy" onClick={copy} aria-label={`copy ${label ?? 'id'} ${value}`}>
        {copied ? 'copied' : 'copy'}
      </button>
    </span>
  );
}
