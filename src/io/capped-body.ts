import type { Dispatcher } from 'undici';

/**
 * The largest answer a daemon gives: a page of 200 records with their parameters and
 * proofs is a few MiB; anything past this is not an svc daemon answering.
 */
export const MAX_DAEMON_ANSWER = 32 * 1024 * 1024;

/** An answer that declared or sent more than the caller's cap; the stream is already destroyed. */
export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the answer is larger than ${limit} bytes`);
    this.name = 'BodyTooLarge';
  }
}

/**
 * Read an undici response body with a running cap: a Content-Length above `maxBytes` is
 * refused before a byte is read, and a body without one is counted as it arrives and cut
 * off (the connection destroyed) as soon as it passes `maxBytes`, so at most one chunk more
 * than the cap is ever held, whatever the peer sends.
 */
export async function readCappedBody(
  res: Pick<Dispatcher.ResponseData, 'body' | 'headers'>,
  maxBytes: number,
): Promise<Buffer> {
  const declared = Number(res.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.body.destroy();
    throw new BodyTooLarge(maxBytes);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      res.body.destroy();
      throw new BodyTooLarge(maxBytes);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}
