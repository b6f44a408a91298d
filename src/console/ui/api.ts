/** The console API from the page: same origin, session cookie, CSRF header on every POST. */

export interface ApiError {
  status: number;
  code: string;
  reason: string;
  remedy?: string;
  field?: string;
}

let csrf = '';

export function setCsrf(token: string): void {
  csrf = token;
}

export class ApiFailure extends Error {
  constructor(readonly error: ApiError) {
    super(error.reason);
  }
}

async function request<T>(
  method: 'GET' | 'POST',
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  const init: RequestInit = {
    method,
    credentials: 'same-origin',
    headers: { ...headers },
    cache: 'no-store',
  };
  if (method === 'POST') {
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
    if (csrf) (init.headers as Record<string, string>)['x-csrf-token'] = csrf;
    init.body = JSON.stringify(body ?? {});
  }
  const r = await fetch(url, init);
  const text = await r.text();
  const json = text === '' ? undefined : (JSON.parse(text) as unknown);
  if (!r.ok) {
    const e = (json ?? {}) as Partial<ApiError>;
    throw new ApiFailure({
      status: r.status,
      code: e.code ?? 'error',
      reason: e.reason ?? r.statusText,
      ...(e.remedy ? { remedy: e.remedy } : {}),
      ...(e.field ? { field: e.field } : {}),
    });
  }
  return json as T;
}

export const get = <T>(url: string) => request<T>('GET', url);
export const post = <T>(url: string, body?: unknown, headers?: Record<string, string>) =>
  request<T>('POST', url, body, headers);

export interface Session {
  tenant_id: string;
  actor_id: string;
  roles: string[];
  csrf_token: string;
  expires_at: string;
}

export function describe(err: unknown): string {
  if (err instanceof ApiFailure) return err.error.reason + (err.error.remedy ? ` (${err.error.remedy})` : '');
  return err instanceof Error ? err.message : String(err);
}
