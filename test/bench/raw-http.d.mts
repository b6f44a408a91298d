// Types for the bench's lean HTTP client (raw-http.mjs), for its unit test.
export function requestBytes(
  url: string,
  request: { method: string; headers?: Record<string, string> },
  body: string,
): Buffer;

export class ResponseReader {
  push(chunk: Buffer): number;
}

export class RawConnection {
  static open(url: string): Promise<RawConnection>;
  send(bytes: Buffer): Promise<number>;
  close(): void;
}
