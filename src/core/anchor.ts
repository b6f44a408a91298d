import type { Ed25519Sign } from '../evidence/crypto-provider.js';
import type { Timestamp, Witness } from '../evidence/export-line.js';
import type { LogState } from '../evidence/journal-entry.js';
import { logHead } from '../evidence/log-head.js';
import { sha256 } from '../evidence/node-crypto.js';
import { signTreeHead, type TreeHead } from '../evidence/tree-head.js';
import { SvcError } from './errors.js';
import { checkGuarded } from './guarded-write.js';
import { asker, type UseCase } from './use-case.js';

/** A signed tree head as stored: the head and the key that signed it. */
export interface StoredHead {
  tenantId: string;
  head: TreeHead;
  keyId: string;
  algorithm: 'ed25519';
  /** Its RFC 3161 timestamp (or the noop placeholder), once recorded. */
  timestamp?: Timestamp;
  /** Witness cosignatures recorded for it, by witness id. */
  witnesses?: Witness[];
}

/** The tenant's active signing key, ready to sign. */
export interface HeadSigner {
  keyId: string;
  sign: Ed25519Sign;
}

/**
 * The store operations anchoring asks for, inside one transaction that holds the tenant's
 * writer (SQLite's IMMEDIATE transaction, PostgreSQL's tenant lock): no append slips
 * between the size read and the head written.
 */
export interface AnchorOps {
  /** the journal's stored state and the head stored at its size; undefined before the first entry */
  journalHead(tenantId: string): { state: LogState; signed: StoredHead | undefined } | undefined;
  /** store the head unless one is stored at its size already: the rows inserted (0 or 1) */
  insertHead(anchor: StoredHead): number;
}

const ask = asker<AnchorOps>();

/**
 * Sign the head over every entry the tenant's journal holds now. A size that already has a
 * head gets that head back (`created: false`), so no two heads of one log disagree at a
 * size. An empty journal is refused: a head over nothing commits to nothing.
 */
export function* signHead(
  tenantId: string,
  signer: HeadSigner,
  signedAt: string,
): UseCase<AnchorOps, { anchor: StoredHead; created: boolean }> {
  const current = yield* ask('journalHead', tenantId);
  if (current === undefined || current.state.size === 0) {
    throw new SvcError('conflict', `the journal of tenant ${tenantId} is empty: there is no head to sign`);
  }
  const { state, signed } = current;
  const unsigned = logHead(tenantId, state, signedAt, sha256);
  if (signed !== undefined) {
    if (signed.head.root_hash !== unsigned.root_hash) {
      // The journal no longer matches what was signed at this size: never sign over that.
      throw new SvcError(
        'internal',
        `the journal of tenant ${tenantId} no longer matches its signed head at size ${state.size}`,
      );
    }
    return { anchor: signed, created: false };
  }
  const anchor: StoredHead = {
    tenantId,
    head: signTreeHead(unsigned, signer.sign),
    keyId: signer.keyId,
    algorithm: 'ed25519',
  };
  // Guarded on "no head at this size": a second head there would be a second opinion on one tree.
  checkGuarded(`the head of tenant ${tenantId} at size ${state.size}`, yield* ask('insertHead', anchor));
  return { anchor, created: true };
}
