import { SvcError } from '../core/errors.js';
import { readBoundedFile } from '../io/bounded-file.js';
import { nodeCrypto } from '../evidence/node-crypto.js';
import { verifyReceipt, type ReceiptReport } from '../evidence/verify/receipt-check.js';
import type { TrustOptions } from '../evidence/verify/trust.js';

/** A receipt with its proof is small: anything larger is not one. */
const MAX_BYTES = 1024 * 1024;

/** Read a saved `GET /v1/receipts/{id}?proof=true` answer and check it offline. */
export async function verifyReceiptFile(path: string, options: TrustOptions): Promise<ReceiptReport> {
  const bytes = readBoundedFile('receipt', path, MAX_BYTES, { code: 'usage' });
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (err) {
    throw new SvcError('usage', `${path} is not a JSON receipt: ${(err as Error).message}`);
  }
  return verifyReceipt(doc, options, nodeCrypto);
}

export function renderReceiptReport(file: string, r: ReceiptReport): string {
  const out = [`${r.result === 'pass' ? 'PASS' : 'FAIL'}: ${r.summary}`, `file: ${file}`];
  out.push(
    `receipt: ${r.receipt_id ?? '?'}, entry ${r.sequence ?? '?'} of a head over ${r.tree_size ?? '?'} entries`,
  );
  out.push(`trusted keys: ${r.trustedKeyIds.join(', ')}`);
  out.push(
    `proves: ${r.proves === 'content' ? 'the entry, every field' : 'the position of a redacted entry, not its content'}`,
  );
  out.push(`timestamp: ${r.timestamp}`);
  for (const n of r.notes) out.push(`note: ${n}`);
  if (r.unverified.length > 0)
    out.push(`unverified (published, not bound by the proof): ${r.unverified.join(', ')}`);
  if (r.findings.length > 0) {
    out.push('', `findings (${r.findings.length}):`);
    for (const f of r.findings) out.push(`  ${f.code}: ${f.message}`);
  }
  out.push('', `What a pass establishes: ${r.establishes}`, 'What it does not establish:');
  for (const limit of r.doesNotEstablish) out.push(`  - ${limit}`);
  return out.join('\n');
}
