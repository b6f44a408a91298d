import type { KeyObject } from 'node:crypto';
import { SvcError } from '../core/errors.js';
import { bytesEqual } from '../evidence/bytes.js';
import { signCosignature } from '../evidence/cosignature.js';
import { encodeBase64 } from '../evidence/encoding.js';
import type { Witness as WitnessObject } from '../evidence/export-line.js';
import { keyIdFor, rawPublicKey } from '../evidence/keys.js';
import { ed25519Signer, nodeCrypto } from '../evidence/node-crypto.js';
import type { TreeHead } from '../evidence/tree-head.js';
import { judgeCosignRequest, WITNESS_ID_PATTERN } from '../evidence/witness-rules.js';
import { loadWitnessState, saveWitnessState, type WitnessState } from './state-file.js';

/** A head that contradicts what was cosigned is a conflict; a head or proof that fails to check is bad input. */
const CONFLICTS: ReadonlySet<string> = new Set(['rollback', 'fork']);

export interface WitnessOptions {
  privateKey: KeyObject;
  stateFile: string;
  /** log id -> the log's pinned raw public key */
  logKeys: ReadonlyMap<string, Uint8Array>;
  /** default: the key id of the witness key */
  witnessId?: string;
  clock?: () => Date;
}

/**
 * A witness: per log it keeps the last head it cosigned, durably, and cosigns a new head
 * only when the log's pinned key signed it and a consistency proof from that last head
 * checks (evidence-format.md §6.2). Requests are judged one at a time, so two concurrent
 * heads can never both move the state.
 */
export class LogWitness {
  readonly id: string;
  readonly publicKey: Uint8Array;
  private readonly sign;
  private readonly state: WitnessState;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly o: WitnessOptions) {
    this.publicKey = rawPublicKey(o.privateKey);
    for (const [logId, key] of o.logKeys) {
      if (bytesEqual(key, this.publicKey)) {
        // A witness holding the log key is the operator cosigning itself: it proves nothing.
        throw new SvcError(
          'usage',
          `the witness key is the pinned key of log ${logId}; a witness needs its own key`,
          {
            field: 'key-file',
          },
        );
      }
    }
    if (o.witnessId !== undefined && !WITNESS_ID_PATTERN.test(o.witnessId)) {
      throw new SvcError('usage', '--id: expected 1 to 128 letters, digits, ".", "_", ":" or "-"', {
        field: 'id',
      });
    }
    this.id = o.witnessId ?? keyIdFor(this.publicKey);
    this.sign = ed25519Signer(o.privateKey);
    this.state = loadWitnessState(o.stateFile);
  }

  lastHead(logId: string): TreeHead | undefined {
    return this.state.logs[logId];
  }

  /** Judge and, when accepted, store the head durably, then cosign it. */
  cosign(head: TreeHead, proof: readonly string[]): Promise<WitnessObject> {
    const run = this.queue.then(() => this.cosignNow(head, proof));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private cosignNow(head: TreeHead, proof: readonly string[]): WitnessObject {
    const logKey = this.o.logKeys.get(head.log_id);
    if (logKey === undefined) {
      throw new SvcError('not_found', `this witness does not follow log ${head.log_id}`, {
        code: 'unknown_log',
        remedy: 'start the witness with --log-key for this log',
      });
    }
    const verdict = judgeCosignRequest(
      head.log_id,
      logKey,
      this.lastHead(head.log_id),
      head,
      proof,
      nodeCrypto,
    );
    if (!verdict.ok) {
      throw new SvcError(CONFLICTS.has(verdict.code) ? 'conflict' : 'invalid_request', verdict.reason, {
        code: verdict.code,
      });
    }
    if (!verdict.unchanged) {
      const next: WitnessState = { version: 1, logs: { ...this.state.logs, [head.log_id]: head } };
      saveWitnessState(this.o.stateFile, next);
      this.state.logs = next.logs;
    }
    const signedAt = (this.o.clock?.() ?? new Date()).toISOString();
    return {
      witness_id: this.id,
      public_key: encodeBase64(this.publicKey),
      signature: signCosignature(head, signedAt, this.sign),
      signed_at: signedAt,
    };
  }
}
