import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { SvcError } from '../../../src/core/errors.js';
import { OutageLog } from '../../../src/http/outage-log.js';

/** A real pino logger writing its JSON lines where the test can read them. */
function logger(): { log: pino.Logger; lines: () => Record<string, unknown>[] } {
  const out: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      out.push(chunk.toString());
      done();
    },
  });
  const log = pino(sink);
  return {
    log,
    lines: () =>
      out
        .join('')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
  };
}

describe('OutageLog', () => {
  const down = (n: number) =>
    new SvcError('unavailable', 'the store is unreachable; nothing was committed or executed', {
      cause: Object.assign(new Error(`connect ECONNREFUSED 127.0.0.1:5432 (${n})`), { code: 'ECONNREFUSED' }),
    });

  it('logs one line per reason and window, then says how many repeats it left out', () => {
    const { log, lines } = logger();
    const outages = new OutageLog(10_000);
    for (let i = 0; i < 500; i++) outages.report(log, down(i), 1_000 + i);
    outages.report(log, new SvcError('unavailable', 'the store is busy'), 1_600);
    outages.report(log, down(501), 11_000);
    const logged = lines();
    expect(logged.map((l) => l.msg)).toEqual([
      'the store is unreachable; nothing was committed or executed',
      'the store is busy',
      'the store is unreachable; nothing was committed or executed',
    ]);
    expect(logged[0]).not.toHaveProperty('repeats_not_logged');
    expect(logged[2]).toMatchObject({ repeats_not_logged: 499, level: 50 });
  });
});
