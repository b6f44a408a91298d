import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { SvcError } from '../core/errors.js';
import { decodeBase64 } from '../evidence/encoding.js';
import { exportBody, headerLine, lineText } from '../evidence/export-writer.js';
import { sha256 } from '../evidence/node-crypto.js';
import type { JournalSnapshot, StoredHead } from '../store/evidence-ports.js';
import type { Keyring } from '../store/keyring.js';
import type { Store } from '../store/ports.js';

export interface ExportSummary {
  tenant_id: string;
  entry_count: number;
  anchor_count: number;
  pre_anchor: boolean;
  root_hash: string;
  /** The key that signed the header's head. */
  key_id: string;
  /**
   * Every key that signed a head in the file (anchors and header), oldest first: what a
   * verifier must be given. After a rotation that is more than the active key.
   */
  key_ids: string[];
  exported_at: string;
}

export interface ExportOptions {
  now: () => Date;
  /** Called as entries are written: how many of how many. */
  onProgress?: (done: number, total: number) => void;
  /** Leave `out` open at the end (stdout). */
  keepOpen?: boolean;
}

/**
 * A redaction that lands between signing the header's head and opening the snapshot would
 * leave redacted entries without their record in the file; the export then starts over.
 * Redactions are rare operator actions, so a few attempts always suffice.
 */
const ATTEMPTS = 5;

/**
 * Stream a tenant's whole log as an `svc.export/v1` file (evidence-format.md): a fresh head
 * over all n entries in the header, entries 1..n, every stored head of size <= n as an
 * anchor line after its entry. Memory stays flat: pages of rows in, text out, with the
 * writer's backpressure.
 */
export async function exportLog(
  store: Store,
  keyring: Keyring,
  tenantId: string,
  out: Writable,
  opts: ExportOptions,
): Promise<ExportSummary> {
  if (!(await store.tenants.get(tenantId))) throw new SvcError('not_found', `no tenant ${tenantId}`);
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const signer = await keyring.signer(tenantId);
    const { anchor, created } = await store.anchors.signCurrent(tenantId, signer, opts.now().toISOString());
    const publicKey = await publicKeyOf(store, anchor);
    const n = anchor.head.tree_size;
    const snapshot = await store.journalExports.snapshot(tenantId);
    try {
      if (snapshot.size < n) throw new Error(`the snapshot holds ${snapshot.size} entries, the head ${n}`);
      if (await snapshot.redactedPast(n)) continue;
      // The head signed for this export is the header's; a head already stored at n is also an anchor.
      const anchorCount = (await snapshot.anchorCount(n)) - (created ? 1 : 0);
      const keyIds = [...new Set([...(await snapshot.anchorKeyIds(n)), anchor.keyId])];
      const exportedAt = opts.now().toISOString();
      const header = headerLine(
        { tenantId, exportedAt, head: anchor.head, publicKey, preAnchor: anchorCount === 0 },
        sha256,
      );
      const skip = created ? { skipAnchorAt: n } : {};
      const body = hasLines(snapshot) ? snapshot.lines(n, skip) : exportBody(n, snapshot.items(n, skip));
      // One page of lines in flight at a time: the writer's backpressure bounds memory.
      const source = Readable.from(lines(lineText(header), body, n, opts.onProgress), {
        highWaterMark: 1,
      });
      await pipeline(source, out, { end: opts.keepOpen !== true });
      return {
        tenant_id: tenantId,
        entry_count: n,
        anchor_count: anchorCount,
        pre_anchor: anchorCount === 0,
        root_hash: anchor.head.root_hash,
        key_id: anchor.keyId,
        key_ids: keyIds,
        exported_at: exportedAt,
      };
    } finally {
      await snapshot.close();
    }
  }
  throw new SvcError(
    'unavailable',
    `the journal of tenant ${tenantId} kept changing under redactions; try again`,
  );
}

/**
 * A snapshot that also gives the body as text, the same bytes as exportBody over its items
 * (SQLite's builds plain entry lines in the query: see store/sqlite/journal-export.ts).
 */
interface TextSnapshot {
  lines(size: number, opts: { skipAnchorAt?: number }): AsyncIterable<string>;
}

function hasLines(snapshot: JournalSnapshot): snapshot is JournalSnapshot & TextSnapshot {
  return typeof (snapshot as Partial<TextSnapshot>).lines === 'function';
}

async function* lines(
  header: string,
  body: AsyncIterable<string>,
  total: number,
  onProgress: ExportOptions['onProgress'],
): AsyncGenerator<string> {
  yield header;
  let done = 0;
  for await (const text of body) {
    yield text;
    if (onProgress) {
      // One entry line per newline, less the anchors: close enough for a progress bar, exact at the end.
      done = Math.min(total, done + countNewlines(text));
      onProgress(done, total);
    }
  }
  onProgress?.(total, total);
}

function countNewlines(text: string): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count++;
  return count;
}

async function publicKeyOf(store: Store, anchor: StoredHead): Promise<Uint8Array> {
  const key = (await store.keys.list(anchor.tenantId)).find((k) => k.keyId === anchor.keyId);
  const raw = key === undefined ? undefined : decodeBase64(key.publicKey);
  if (raw?.length !== 32)
    throw new Error(`signing key ${anchor.keyId} of tenant ${anchor.tenantId} is not on record`);
  return raw;
}
