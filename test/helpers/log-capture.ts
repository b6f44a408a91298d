import { Writable } from 'node:stream';

/** Every line a real pino logger writes, kept as text: pass `stream` in the logger options. */
export function logCapture(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}
