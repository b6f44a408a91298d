import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  onePage,
  pageStream,
  ReportedError,
  sink,
  writeJsonList,
  writeTableList,
  type Column,
  type Page,
} from '../../../src/cli/list-output.js';
import { counted } from '../../../src/cli/plural.js';
import { withRemedy } from '../../../src/cli/remedies.js';
import { cellText, renderTable } from '../../../src/cli/table.js';
import { SvcError, type ErrorCode } from '../../../src/core/errors.js';

interface Row {
  id: string;
  n: number;
  note: string | null;
}

const COLUMNS: Column<Row>[] = [
  { header: 'id', cell: (r) => r.id },
  { header: 'n', cell: (r) => r.n },
  { header: 'note', cell: (r) => r.note },
];

const rows = (from: number, count: number): Row[] =>
  Array.from({ length: count }, (_, i) => ({ id: `r${from + i}`, n: from + i, note: i % 2 ? 'odd' : null }));

/** Pages of `size` over `total` rows; the cursor is the next row's index. */
function fakeDaemon(total: number, size: number, failAt?: number) {
  const requested: (string | undefined)[] = [];
  const fetchPage = async (cursor: string | undefined): Promise<Page<Row>> => {
    requested.push(cursor);
    const from = cursor === undefined ? 0 : Number(cursor);
    if (failAt !== undefined && from >= failAt) {
      throw new SvcError('unavailable', 'the daemon went away', { remedy: 'start it again' });
    }
    const count = Math.min(size, total - from);
    return { items: rows(from, count), next_cursor: from + count < total ? String(from + count) : null };
  };
  return { fetchPage, requested };
}

/** A writer that records every chunk as it is written, and what had been written by then. */
function recorder() {
  const chunks: string[] = [];
  return { chunks, write: async (text: string) => void chunks.push(text), text: () => chunks.join('') };
}

const asError = (err: unknown) => withRemedy(err as SvcError, 'receipts list');

describe('the table renderer', () => {
  it('aligns columns, leaves the last unpadded, and shows nulls as empty', () => {
    const text = renderTable(
      ['id', 'status', 'note'],
      [
        ['a', 'pending', 'x'],
        ['bbbb', null, undefined],
      ],
    );
    expect(text.split('\n')).toEqual([
      'id    status   note',
      '----  -------  ----',
      'a     pending  x',
      'bbbb',
    ]);
  });

  it('never lets a control character or a bidi override reach the terminal', () => {
    expect(cellText('ok\u001b[2J\nnext\u202Eevil')).toBe('ok\\u001b[2J\\nnext\\u202eevil');
    expect(renderTable(['a'], [['\u0007']])).toContain('\\u0007');
    expect(cellText(12)).toBe('12');
  });

  it('aligns CJK and emoji cells by the columns they take on a terminal, not their code units', () => {
    const text = renderTable(
      ['name', 'kind', 'note'],
      [
        ['支払い承認', '💸', 'wide'],
        ['ab', 'x', 'narrow'],
        ['👍🏽 ok', 'é', 'mixed'],
      ],
    );
    // A wide character takes two columns: '支払い承認' is 10, '💸' 2, '👍🏽' 2.
    expect(text.split('\n')).toEqual([
      'name        kind  note',
      '----------  ----  ----',
      '支払い承認  💸    wide',
      'ab          x     narrow',
      '👍🏽 ok       é     mixed',
    ]);
  });

  it('renders 50,000 rows in one pass, every row once', () => {
    const many = rows(0, 50_000).map((r) => [r.id, r.n, r.note]);
    const lines = renderTable(['id', 'n', 'note'], many).split('\n');
    expect(lines).toHaveLength(50_002);
    expect(lines[2]).toBe('r0      0');
    expect(lines[50_001]).toBe('r49999  49999  odd');
  });
});

describe('pages', () => {
  it('yields one page unless asked for all, then every page in order', async () => {
    const one = fakeDaemon(5, 2);
    const got: Page<Row>[] = [];
    for await (const p of pageStream(one.fetchPage, { all: false })) got.push(p);
    expect(got.map((p) => p.next_cursor)).toEqual(['2']);
    const all = fakeDaemon(5, 2);
    const ids: string[] = [];
    for await (const p of pageStream(all.fetchPage, { cursor: '1', all: true }))
      ids.push(...p.items.map((r) => r.id));
    expect(ids).toEqual(['r1', 'r2', 'r3', 'r4']);
    expect(all.requested).toEqual(['1', '3']);
  });

  it('asks for the next page before the current one is consumed', async () => {
    const d = fakeDaemon(6, 2);
    const it = pageStream(d.fetchPage, { all: true })[Symbol.asyncIterator]();
    await it.next();
    expect(d.requested).toEqual([undefined, '2']);
    await it.return?.(undefined);
  });
});

describe('the streamed JSON list', () => {
  it('writes {items, next_cursor} a page at a time, each item on its own line', async () => {
    const d = fakeDaemon(5, 2);
    const out = recorder();
    const r = await writeJsonList(pageStream(d.fetchPage, { all: true }), out.write, asError);
    expect(r).toEqual({ count: 5, next_cursor: null });
    // Streamed: one write per page and one to close, not one document at the end.
    expect(out.chunks).toHaveLength(4);
    expect(out.chunks[0]).toBe('{"items":[\n{"id":"r0","n":0,"note":null},\n{"id":"r1","n":1,"note":"odd"}');
    const doc = JSON.parse(out.text()) as Page<Row>;
    expect(Object.keys(doc)).toEqual(['items', 'next_cursor']);
    expect(doc.items.map((x) => x.id)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
    expect(out.text().split('\n')).toHaveLength(8);
  });

  it('an empty list and a single page with a cursor are the same shape', async () => {
    const empty = recorder();
    await writeJsonList(onePage([]), empty.write, asError);
    expect(JSON.parse(empty.text())).toEqual({ items: [], next_cursor: null });
    const first = recorder();
    await writeJsonList(pageStream(fakeDaemon(5, 2).fetchPage, { all: false }), first.write, asError);
    expect(JSON.parse(first.text())).toMatchObject({ next_cursor: '2' });
  });

  it('a page that fails midway closes the document with the items so far, the cursor to resume and the error', async () => {
    const d = fakeDaemon(10, 2, 4);
    const out = recorder();
    const run = writeJsonList(pageStream(d.fetchPage, { all: true }), out.write, asError);
    const err = (await run.catch((e: unknown) => e)) as ReportedError;
    expect(err).toBeInstanceOf(ReportedError);
    expect(err.error.code).toBe('unavailable');
    expect(JSON.parse(out.text())).toEqual({
      items: rows(0, 4),
      next_cursor: '4',
      error: { code: 'unavailable', reason: 'the daemon went away', remedy: 'start it again' },
    });
  });

  it('a first page that fails writes nothing: the error is reported the ordinary way', async () => {
    const out = recorder();
    const run = writeJsonList(pageStream(fakeDaemon(4, 2, 0).fetchPage, { all: true }), out.write, asError);
    await expect(run).rejects.toMatchObject({ code: 'unavailable' });
    expect(out.chunks).toEqual([]);
  });

  it('streams 50,000 items with memory for a page: each chunk holds one page', async () => {
    const d = fakeDaemon(50_000, 200);
    let chunks = 0;
    let largest = 0;
    let text = '';
    const write = async (t: string) => {
      chunks++;
      largest = Math.max(largest, t.length);
      text += t;
    };
    const r = await writeJsonList(pageStream(d.fetchPage, { all: true }), write, asError);
    expect(r.count).toBe(50_000);
    expect(chunks).toBe(251);
    expect(largest).toBeLessThan(200 * 60);
    expect((JSON.parse(text) as Page<Row>).items).toHaveLength(50_000);
  });
});

describe('the streamed table', () => {
  it('prints the header once, widths from the first page, rows as pages arrive', async () => {
    const out = recorder();
    const r = await writeTableList(pageStream(fakeDaemon(5, 2).fetchPage, { all: true }), COLUMNS, out.write);
    expect(r).toEqual({ count: 5, next_cursor: null });
    expect(out.chunks).toEqual([
      'id  n  note\n--  -  ----\nr0  0\nr1  1  odd\n',
      'r2  2\nr3  3  odd\n',
      'r4  4\n',
    ]);
  });

  it('a wider later cell pushes its own row only', async () => {
    const out = recorder();
    const pages = async function* () {
      yield { items: [{ id: 'a', n: 1, note: 'x' }], next_cursor: 'c' };
      yield { items: [{ id: 'abcdef', n: 2, note: 'y' }], next_cursor: null };
    };
    await writeTableList(pages(), COLUMNS, out.write);
    expect(out.text().split('\n').slice(2, 4)).toEqual(['a   1  x', 'abcdef  2  y']);
  });

  it("a later page keeps the first page's columns in terminal width, and a wider CJK cell pushes only its row", async () => {
    const out = recorder();
    const pages = async function* () {
      yield { items: [{ id: '受付', n: 1, note: 'x' }], next_cursor: 'c' };
      yield {
        items: [
          { id: 'ab', n: 2, note: 'y' },
          { id: '受付番号', n: 3, note: 'z' },
          { id: '\u202e😀', n: 4, note: 'w' },
        ],
        next_cursor: null,
      };
    };
    await writeTableList(pages(), COLUMNS, out.write);
    expect(out.text().split('\n').slice(2, 6)).toEqual([
      '受付  1  x',
      'ab    2  y',
      '受付番号  3  z',
      '\\u202e😀  4  w',
    ]);
  });

  it('a page that fails after rows were printed keeps them and says where to resume', async () => {
    const out = recorder();
    const run = writeTableList(pageStream(fakeDaemon(10, 2, 4).fetchPage, { all: true }), COLUMNS, out.write);
    await expect(run).rejects.toMatchObject({ cursor: '4' });
    expect(out.text()).toContain('r3  3  odd');
  });
});

describe('remedies', () => {
  it('every error gets one, naming a command; one the error named itself is kept', () => {
    const usage = withRemedy(
      new SvcError('usage', 'limit: expected 1 to 200', { field: 'limit' }),
      'task:list',
    );
    expect(usage.toBody()).toEqual({
      code: 'usage',
      reason: 'limit: expected 1 to 200',
      field: 'limit',
      remedy: 'correct limit; run `svc task list --help` for what each flag takes',
    });
    const kept = withRemedy(new SvcError('not_found', 'no task x', { remedy: 'create it' }), 'task show');
    expect(kept.remedy).toBe('create it');
    for (const kind of [
      'unauthenticated',
      'forbidden',
      'not_found',
      'conflict',
      'unavailable',
      'internal',
    ] as const) {
      const body = withRemedy(new SvcError(kind, 'r', { code: `${kind}_x` as ErrorCode }), 'x').toBody();
      expect(body.code).toBe(`${kind}_x`);
      expect(body.remedy).toMatch(/`svc |SVC_DEBUG|try again/);
      expect(body.remedy).not.toMatch(/\/v1\//);
    }
  });
});

describe('a not-found remedy names a command that exists, never a literal `svc … list`', () => {
  const known = ['task:list', 'task:show', 'tenant:list', 'export', 'key:show'];
  it.each([
    ['task:show', undefined, '`svc task list`'],
    ['export', 'tenant', '`svc tenant list`'],
    ['key:show', undefined, '`svc tenant list`'],
    ['task:show', 'tenant', '`svc tenant list`'],
  ])('%s (field %s): %s', (id, field, command) => {
    const err = new SvcError('not_found', 'no such thing', field ? { field } : {});
    const remedy = withRemedy(err, id, known).remedy!;
    expect(remedy).toContain(`${command} shows what exists`);
    expect(remedy).not.toContain('…');
    const conflict = withRemedy(new SvcError('conflict', 'r'), id, known).remedy!;
    expect(conflict).not.toContain('…');
  });
});

describe('CLI text a new user reads', () => {
  it('a store command that cannot reach its database points at the URL and the server, not a daemon log', () => {
    const remedy = withRemedy(
      new SvcError('unavailable', 'connect ECONNREFUSED 127.0.0.1:5432'),
      'store:migrate',
    ).remedy!;
    expect(remedy).toMatch(/database URL/);
    expect(remedy).toMatch(/PostgreSQL server/);
    expect(remedy).not.toMatch(/daemon log/);
  });

  it('counts take the noun in their number', () => {
    expect(counted(1, 'entry', 'entries')).toBe('1 entry');
    expect(counted(0, 'anchor', 'anchors')).toBe('0 anchors');
    expect(counted(2, 'anchor', 'anchors')).toBe('2 anchors');
  });
});

describe('the stdout sink', () => {
  it('waits for a slow reader, and keeps order', async () => {
    const got: string[] = [];
    let pendingWrites = 0;
    const slow = new Writable({
      highWaterMark: 4,
      write(chunk: Buffer, _encoding, done) {
        pendingWrites++;
        setTimeout(() => {
          got.push(chunk.toString());
          pendingWrites--;
          done();
        }, 2);
      },
    });
    const { write, release } = sink(slow);
    for (let i = 0; i < 20; i++) {
      await write(`chunk-${i};`);
      // Backpressure: never more than one chunk beyond the buffer in flight.
      expect(pendingWrites).toBeLessThanOrEqual(1);
    }
    release();
    await new Promise<void>((r) => slow.end(r));
    expect(got.join('')).toBe(Array.from({ length: 20 }, (_, i) => `chunk-${i};`).join(''));
  });

  it('a reader that went away fails the next write instead of crashing the process', async () => {
    const gone = new Writable({
      write(_chunk, _encoding, done) {
        done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    const { write, release } = sink(gone);
    await write('first').catch(() => undefined);
    await new Promise((r) => setImmediate(r));
    await expect(write('second')).rejects.toMatchObject({ code: 'EPIPE' });
    release();
  });
});
