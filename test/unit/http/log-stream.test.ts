import { describe, expect, it } from 'vitest';
import { LogStream, MAX_TURN_BUFFER } from '../../../src/http/log-stream.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('LogStream', () => {
  it('writes the lines of one turn together, once the turn is over', async () => {
    const writes: string[] = [];
    const log = new LogStream({ write: (chunk) => writes.push(chunk) });
    log.write('{"a":1}\n');
    log.write('{"a":2}\n');
    log.write('{"a":3}\n');
    expect(writes).toEqual([]);
    await turn();
    expect(writes).toEqual(['{"a":1}\n{"a":2}\n{"a":3}\n']);
    log.write('{"a":4}\n');
    await turn();
    expect(writes).toEqual(['{"a":1}\n{"a":2}\n{"a":3}\n', '{"a":4}\n']);
  });

  it('writes at once when a turn holds more than its bound, and keeps every line in order', async () => {
    const writes: string[] = [];
    const log = new LogStream({ write: (chunk) => writes.push(chunk) });
    const line = `${JSON.stringify({ pad: 'x'.repeat(1000) })}\n`;
    const count = Math.ceil(MAX_TURN_BUFFER / line.length) + 5;
    for (let i = 0; i < count; i++) log.write(line);
    expect(writes).toHaveLength(1);
    expect(writes[0]!.length).toBeGreaterThanOrEqual(MAX_TURN_BUFFER);
    await turn();
    expect(writes.join('')).toBe(line.repeat(count));
  });

  it('flush writes what it holds and calls back; nothing held writes nothing', () => {
    const writes: string[] = [];
    const log = new LogStream({ write: (chunk) => writes.push(chunk) });
    log.flushSync();
    expect(writes).toEqual([]);
    log.write('x\n');
    let called = false;
    log.flush(() => (called = true));
    expect(writes).toEqual(['x\n']);
    expect(called).toBe(true);
  });
});
