import { request, type Dispatcher } from 'undici';

/** Witnesses and timestamp authorities answer in well under this; a hung one never stalls anchoring long. */
export const ATTEST_TIMEOUT_MS = 5_000;

/** An answer larger than this is refused unread: neither a head, a cosignature nor a token needs more. */
const MAX_BYTES = 256 * 1024;

export interface CallResult {
  status: number;
  body: Buffer;
}

/**
 * One HTTP call with a deadline and a bounded body. Throws an Error whose message names the URL.
 * Redirects are never followed (undici's `request` returns a 3xx as it is, and the callers
 * take only a 200): a witness or authority is the address configured, not one it points to.
 * `dispatcher` carries a pinned trust root (witness-pin.ts); without one, the global agent.
 */
export async function call(
  url: string,
  init: {
    method: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: Uint8Array | string;
    dispatcher?: Dispatcher;
  },
  timeoutMs = ATTEST_TIMEOUT_MS,
): Promise<CallResult> {
  let res;
  try {
    res = await request(url, {
      method: init.method,
      ...(init.headers ? { headers: init.headers } : {}),
      ...(init.body !== undefined ? { body: init.body } : {}),
      ...(init.dispatcher ? { dispatcher: init.dispatcher } : {}),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    throw new Error(`${url} cannot be reached: ${(err as Error).message}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += (chunk as Buffer).length;
    if (size > MAX_BYTES) {
      res.body.destroy();
      throw new Error(`${url} answered more than ${MAX_BYTES} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return { status: res.statusCode, body: Buffer.concat(chunks) };
}
