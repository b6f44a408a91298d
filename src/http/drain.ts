import type { FastifyInstance } from 'fastify';

/**
 * A listener's stop, seen from inside: once `begin` is called the listener is draining.
 * Every answer from then on carries `Connection: close`, so a client holding a kept-alive
 * connection learns from its answer to open its next one elsewhere, rather than sending
 * into a socket that is about to close. `/readyz` reads `draining` to turn unready at once.
 */
export class Drain {
  private since: Date | undefined;

  install(app: FastifyInstance): void {
    // Callback form: it runs on every answer, and an async hook costs a promise and a turn.
    app.addHook('onSend', (request, reply, payload, done) => {
      if (this.since !== undefined && request.raw.httpVersionMajor < 2)
        void reply.header('connection', 'close');
      done(null, payload);
    });
  }

  begin(now = new Date()): void {
    this.since ??= now;
  }

  get draining(): boolean {
    return this.since !== undefined;
  }
}
