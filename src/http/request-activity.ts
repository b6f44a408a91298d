import type { Server } from 'node:http';

/**
 * How many requests the servers it watches are in the middle of, from arrival to the close
 * of the response (answered, or the connection gone first). Tells the store when a request
 * is alone, which a lone decision's fsync uses to skip the thread pool (commit-queue.ts).
 */
export class RequestActivity {
  private active = 0;

  watch(server: Server): void {
    server.on('request', (_request, response) => {
      this.active++;
      // 'close' comes exactly once per response, whether it was sent or cut off.
      response.once('close', () => this.active--);
    });
  }

  /** Requests arrived and not yet closed. */
  get count(): number {
    return this.active;
  }

  /** At most one request in progress: the caller's own, if it is one. */
  quiet(): boolean {
    return this.active <= 1;
  }
}
