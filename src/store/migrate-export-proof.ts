import { SvcError } from '../core/errors.js';
import { exportBody } from '../evidence/export-writer.js';
import type { JournalExports, JournalSnapshot } from './evidence-ports.js';

export interface ExportProof {
  tenantId: string;
  /** entries in both exports */
  entries: number;
  /** body lines (entries and anchors) found identical */
  lines: number;
}

/**
 * What `svc export` writes for a tenant, from each store: the body (every entry and
 * stored anchor, in file order, through the exporter's own writer) and what the header
 * says besides its fresh head (anchor count, signing keys, redactions past the head).
 * Identical from both is the proof the issue asks for; no head is signed, so neither
 * store is written to.
 */
export async function proveExports(
  source: JournalExports,
  copy: JournalExports,
  tenantIds: string[],
): Promise<ExportProof[]> {
  const proofs: ExportProof[] = [];
  for (const tenantId of tenantIds) {
    const a = await source.snapshot(tenantId);
    try {
      const b = await copy.snapshot(tenantId);
      try {
        proofs.push(await compare(tenantId, a, b));
      } finally {
        await b.close();
      }
    } finally {
      await a.close();
    }
  }
  return proofs;
}

async function compare(tenantId: string, a: JournalSnapshot, b: JournalSnapshot): Promise<ExportProof> {
  const n = b.size;
  if (a.size !== n) {
    throw differs(
      tenantId,
      `the source now holds ${a.size} entries, the copy ${n}: something wrote to the data dir during the copy`,
      'stop the daemon, drop the target database, create it again and migrate again',
    );
  }
  for (const [what, x, y] of [
    ['the anchor count', await a.anchorCount(n), await b.anchorCount(n)],
    [
      'the signing keys of the anchors',
      (await a.anchorKeyIds(n)).join(','),
      (await b.anchorKeyIds(n)).join(','),
    ],
    ['whether a later redaction covers the log', await a.redactedPast(n), await b.redactedPast(n)],
  ] as const) {
    if (x !== y)
      throw differs(tenantId, `${what} differs (${String(x)} in the source, ${String(y)} in the copy)`);
  }
  if (n === 0) return { tenantId, entries: 0, lines: 0 };
  const left = lines(exportBody(n, a.items(n, {})));
  const right = lines(exportBody(n, b.items(n, {})));
  let count = 0;
  for (;;) {
    const [x, y] = await Promise.all([left.next(), right.next()]);
    if (x.done && y.done) return { tenantId, entries: n, lines: count };
    count++;
    if (x.done || y.done || x.value !== y.value) {
      await Promise.all([left.return(undefined), right.return(undefined)]);
      const which = x.done ? 'the copy has more lines' : y.done ? 'the copy has fewer lines' : 'it differs';
      throw differs(tenantId, `line ${count + 1} of the export (after the header): ${which}`);
    }
  }
}

async function* lines(chunks: AsyncIterable<string>): AsyncGenerator<string> {
  for await (const text of chunks) {
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      yield text.slice(start, end);
      start = end + 1;
    }
  }
}

function differs(tenantId: string, what: string, remedy?: string): SvcError {
  return new SvcError(
    'internal',
    `the export of tenant ${tenantId} from the copy is not the source's: ${what}`,
    {
      remedy:
        remedy ??
        'drop the target database (it holds an unproven copy) and report this with the svc version; the SQLite data dir is unchanged',
    },
  );
}
