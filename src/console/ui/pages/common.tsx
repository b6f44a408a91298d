import type { ComponentChildren } from 'preact';
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
/** A date as text (where a component cannot go): ISO 8601, then the local time; see `When`. */
export const when = (iso: string | null) => {
  if (!iso) return '–';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toISOString().replace(/\.\d{3}Z$/, 'Z')} (local ${localIso(d)})`;
};
export const short = (hex: string) => `${hex.slice(0, 12)}…`;

const pad = (n: number) => String(n).padStart(2, '0');

/** The viewer's local time as ISO 8601 reads it, with its offset: `2026-11-27 11:15:02 +01:00`. */
export function localIso(d: Date): string {
  const off = -d.getTimezoneOffset();
  const sign = off < 0 ? '-' : '+';
  const zone = `${sign}${pad(Math.floor(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())} ${zone}`;
}

/**
 * `2026-11-27T10:15:02Z` with the viewer's local time beside it, both ISO 8601 (never a
 * locale's month/day order): unambiguous, and readable where the viewer is.
 */
export function When({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span class="muted">–</span>;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return <span>{iso}</span>;
  const utc = d.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return (
    <time class="when" dateTime={utc}>
      <span class="utc">{utc}</span> <span class="muted local">(local {localIso(d)})</span>
    </time>
  );
}

/**
 * What an empty list means and what to do next: the command or page that fills it. Every
 * list's empty state says both, never just "nothing".
 */
export function EmptyState({ lead, next }: { lead: string; next: ComponentChildren }) {
  return (
    <div class="empty-state" role="status">
      <p class="lead">{lead}</p>
      <p class="muted">{next}</p>
    </div>
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
