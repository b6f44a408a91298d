import { SvcError } from '../core/errors.js';
import { decodeBase64 } from '../evidence/encoding.js';
import { exportBody, headerLine, lineText } from '../evidence/export-writer.js';
import { recordHash } from '../evidence/journal-entry.js';
import { nodeCrypto, sha256 } from '../evidence/node-crypto.js';
import { verifyExport } from '../evidence/verify/index.js';
import type { JournalSnapshot, StoredHead, StoredRecord } from './evidence-ports.js';
import type { Store } from './ports.js';

export interface TenantJournalCheck {
  tenant_id: string;
  /** entries the log holds */
  entries: number;
  /** the last signed head the check ended at; null when the log has none yet */
  head: { tree_size: number; root_hash: string; key_id: string } | null;
  /** entries past that head: no signature covers them yet */
  unsigned_entries: number;
}

/**
 * Recompute every tenant's chain and Merkle root from its stored entries and check them
 * against its last signed head, with the offline verifier `svc verify` runs: the entries up
 * to that head are streamed as the export they would make, under that head, with the
 * tenant's recorded public keys trusted; and every stored record must still hash to the
 * record_hash its entry commits to (the export carries the hash, not the record). Reads only: no head is signed, so a backup or a
 * restored database is checked as it is. The first tenant that fails throws, naming it and
 * the verifier's first findings.
 */
export async function checkJournals(store: Store): Promise<TenantJournalCheck[]> {
  const checks: TenantJournalCheck[] = [];
  for (const tenant of await store.tenants.list()) {
    const snapshot = await store.journalExports.snapshot(tenant.id);
    try {
      checks.push(await checkTenant(store, tenant.id, snapshot));
    } finally {
      await snapshot.close();
    }
  }
  return checks;
}

async function checkTenant(
  store: Store,
  tenantId: string,
  snapshot: JournalSnapshot,
): Promise<TenantJournalCheck> {
  const entries = snapshot.size;
  await checkRecords(tenantId, snapshot);
  // The snapshot is one state of the log; a head signed after it opened may cover more.
  const heads = (await store.anchors.list(tenantId)).filter((h) => h.head.tree_size <= entries);
  const last = heads.at(-1);
  if (last === undefined) return { tenant_id: tenantId, entries, head: null, unsigned_entries: entries };
  const keys = await store.keys.list(tenantId);
  const publicKeys = keys.map((k) => {
    const raw = decodeBase64(k.publicKey);
    if (raw === undefined) throw corrupt(tenantId, `the recorded public key ${k.keyId} is not base64`);
    return { keyId: k.keyId, raw };
  });
  const publicKey = publicKeys.find((k) => k.keyId === last.keyId);
  if (publicKey === undefined) {
    throw corrupt(tenantId, `the key ${last.keyId} that signed its last head is not on record`);
  }
  const n = last.head.tree_size;
  const header = headerLine(
    {
      tenantId,
      exportedAt: last.head.signed_at,
      head: last.head,
      publicKey: publicKey.raw,
      preAnchor: heads.length === 1,
    },
    sha256,
  );
  const report = await verifyExport(
    lines(lineText(header), exportBody(n, snapshot.items(n, { skipAnchorAt: n }))),
    { publicKeys: publicKeys.map((k) => k.raw) },
    nodeCrypto,
  ).catch((err: unknown) => {
    throw corrupt(tenantId, (err as Error).message);
  });
  if (report.result !== 'pass') {
    const first = report.findings
      .slice(0, 3)
      .map((f) => `${f.code}${f.line === null ? '' : ` (line ${f.line})`}: ${f.message}`)
      .join('; ');
    throw corrupt(tenantId, `its journal does not match its last signed head (size ${n}): ${first}`);
  }
  return { tenant_id: tenantId, entries, head: headOf(last), unsigned_entries: entries - n };
}

/** A redacted entry's record is blanked and its record_hash is 64 zeros (evidence-format.md §7). */
const REDACTED = '0'.repeat(64);

async function checkRecords(tenantId: string, snapshot: JournalSnapshot): Promise<void> {
  for await (const page of snapshot.records(snapshot.size)) {
    for (const row of page) {
      if (row.recordHash === REDACTED) continue; // the entry line commits to the zeros: the verifier checks it
      if (hashOf(row) !== row.recordHash) {
        throw corrupt(tenantId, `the record of entry ${row.sequence} does not hash to its record_hash`);
      }
    }
  }
}

function hashOf(row: StoredRecord): string | undefined {
  try {
    return recordHash(JSON.parse(row.record) as object, sha256);
  } catch {
    return undefined;
  }
}

function headOf(h: StoredHead): NonNullable<TenantJournalCheck['head']> {
  return { tree_size: h.head.tree_size, root_hash: h.head.root_hash, key_id: h.keyId };
}

async function* lines(header: string, body: AsyncIterable<string>): AsyncGenerator<string> {
  yield header;
  yield* body;
}

function corrupt(tenantId: string, why: string): SvcError {
  return new SvcError('unavailable', `tenant ${tenantId}: ${why}`, {
    code: 'journal_corrupt',
    remedy:
      'do not serve from this database: restore a backup that verifies, and keep this copy for investigation',
  });
}
