import { execFileSync } from 'node:child_process';
import { mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readBoundedFile, readBoundedText } from '../../../src/io/bounded-file.js';
import { tmpDir } from '../../helpers/tmp.js';

/** What a refusal was: code, field and reason, so each case reads as one line. */
function refusal(fn: () => unknown): { code?: string; field?: string; reason?: string } {
  try {
    fn();
  } catch (err) {
    return err as { code?: string; field?: string; reason?: string };
  }
  throw new Error('expected a refusal');
}

describe('readBoundedFile: an operator input file, fstat first, at most limit + 1 bytes', () => {
  let tmp: { path: string; cleanup: () => void };
  beforeEach(() => {
    tmp = tmpDir();
  });
  afterEach(() => tmp.cleanup());

  it('reads a regular file up to the limit exactly, and refuses one byte more naming the field and the limit', () => {
    const file = join(tmp.path, 'policy.cedar');
    writeFileSync(file, 'x'.repeat(100));
    expect(readBoundedFile('file', file, 100).length).toBe(100);
    expect(refusal(() => readBoundedFile('file', file, 99))).toMatchObject({
      code: 'invalid_request',
      field: 'file',
      reason: `file: ${file} is larger than 99 bytes, the limit for it`,
    });
  });

  it.each([
    ['/dev/zero', () => '/dev/zero', /is a character device, not a regular file/],
    [
      'a FIFO with no writer',
      (dir: string) => {
        const fifo = join(dir, 'fifo');
        execFileSync('mkfifo', [fifo]);
        return fifo;
      },
      /is a FIFO, not a regular file/,
    ],
    [
      'a directory',
      (dir: string) => {
        mkdirSync(join(dir, 'd'));
        return join(dir, 'd');
      },
      /is a directory, not a regular file/,
    ],
  ])('refuses %s at once, naming the field', (_name, make, reason) => {
    const path = make(tmp.path);
    expect(refusal(() => readBoundedFile('file', path, 1 << 20))).toMatchObject({
      code: 'invalid_request',
      field: 'file',
      reason: expect.stringMatching(reason),
    });
  });

  it('refuses a 150 MB sparse file from its size, without reading it', () => {
    const file = join(tmp.path, 'disk.img');
    writeFileSync(file, '');
    truncateSync(file, 150 * 1024 * 1024);
    const before = process.memoryUsage().rss;
    expect(refusal(() => readBoundedText('file', file, 1 << 20))).toMatchObject({
      field: 'file',
      reason: expect.stringMatching(/larger than 1048576 bytes/),
    });
    // Nothing near the file's size was allocated (readFileSync would have taken 150 MB).
    expect(process.memoryUsage().rss - before).toBeLessThan(32 * 1024 * 1024);
  });

  it('stops at limit + 1 bytes when the size fstat reports is not the size read (/proc)', () => {
    // /proc files are regular files of size 0 whose reads return content: the running count,
    // not the size, is what bounds the read.
    expect(readBoundedText('file', '/proc/self/status', 1 << 20)).toMatch(/^Name:/);
    expect(refusal(() => readBoundedFile('file', '/proc/self/status', 16))).toMatchObject({
      field: 'file',
      reason: expect.stringMatching(/larger than 16 bytes/),
    });
  });

  it('says a missing file does not exist (not_found), and a caller may code refusals as usage', () => {
    const missing = join(tmp.path, 'nope');
    expect(refusal(() => readBoundedFile('file', missing, 10))).toMatchObject({
      code: 'not_found',
      reason: `file: ${missing} does not exist`,
    });
    expect(refusal(() => readBoundedFile('plan', '/dev/zero', 10, { code: 'usage' }))).toMatchObject({
      code: 'usage',
      field: 'plan',
    });
  });

  it('refuses text that is not UTF-8, and drops a byte-order mark', () => {
    const file = join(tmp.path, 'latin1.txt');
    writeFileSync(file, Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    expect(refusal(() => readBoundedText('file', file, 100)).reason).toMatch(/is not UTF-8 text/);
    writeFileSync(file, Buffer.from('\ufeffpermit', 'utf8'));
    expect(readBoundedText('file', file, 100)).toBe('permit');
  });
});
