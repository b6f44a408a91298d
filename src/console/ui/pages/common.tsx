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
