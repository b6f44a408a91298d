import { attestationFailed, type AttestationFailure } from '../../core/notify/attestation-failure.js';
import { encodeHex, encodeUtf8 } from '../../evidence/encoding.js';
import type { Timestamp } from '../../evidence/export-line.js';
import { sha256 } from '../../evidence/node-crypto.js';
import { headPayload } from '../../evidence/tree-head.js';
import type { AnchorRepo, ProofRepo, StoredHead } from '../../store/evidence-ports.js';
import type { NotifyRepo } from '../../store/notify-ports.js';
import { requestTimestamp } from './tsa-client.js';
import { CosignatureRefused, WitnessClient } from './witness-client.js';
import type { WitnessPin } from './witness-pin.js';

export interface AttestorOptions {
  /** RFC 3161 authority; without one each anchor carries the noop placeholder. */
  tsaUrl?: string;
  /** The witnesses (`svc witness serve`), each pinned by id and key (witness-pin.ts). */
  witnesses: readonly WitnessPin[];
  log: {
    info: (obj: object, msg: string) => void;
    warn: (obj: object, msg: string) => void;
  };
}

/** What /readyz may say: counts and states only, never a URL, a tenant or an error text. */
export interface AttestationHealth {
  /** `refused`: answers not stored since start because the pinned witness did not give them */
  witnesses: { configured: number; failing: number; refused: number };
  timestamps: { authority: 'rfc3161' | 'noop'; failing: boolean };
}

/**
 * After an anchor is signed: its RFC 3161 timestamp and the cosignature of every configured
 * witness, each recorded beside the anchor as it arrives. Runs on the anchor schedule,
 * never in a decision's path and never holding the write lock, and a failure only leaves
 * the anchor without that attestation: logged, counted in /readyz, tried again at the next
 * anchor (a witness catches up through the consistency proof from its last head).
 */
export class AnchorAttestor {
  private readonly witnessFailing: boolean[];
  private readonly clients: WitnessClient[];
  private refused = 0;
  private failures = 0;
  private tsaFailing = false;

  constructor(
    private readonly store: { anchors: AnchorRepo; proofs: ProofRepo; notify: Pick<NotifyRepo, 'runOutbox'> },
    private readonly o: AttestorOptions,
  ) {
    this.witnessFailing = o.witnesses.map(() => false);
    this.clients = o.witnesses.map((pin) => new WitnessClient(pin));
  }

  /** Close the witness connections; after the last `attest`. */
  async close(): Promise<void> {
    await Promise.all(this.clients.map((c) => c.close()));
  }

  /** Cosignatures and timestamps asked for and not obtained since start (for metrics). */
  failureCount(): number {
    return this.failures;
  }

  health(): AttestationHealth {
    return {
      witnesses: {
        configured: this.o.witnesses.length,
        failing: this.witnessFailing.filter(Boolean).length,
        refused: this.refused,
      },
      timestamps: { authority: this.o.tsaUrl === undefined ? 'noop' : 'rfc3161', failing: this.tsaFailing },
    };
  }

  async attest(anchor: StoredHead): Promise<void> {
    await Promise.all([
      this.timestamp(anchor),
      ...this.clients.map((client, i) => this.cosign(anchor, client, i)),
    ]);
  }

  private async timestamp(anchor: StoredHead): Promise<void> {
    const { tenantId, head } = anchor;
    const digest = sha256(encodeUtf8(headPayload(head)));
    let timestamp: Timestamp;
    if (this.o.tsaUrl === undefined) {
      // §6.1: a placeholder, labelled so; it proves nothing about time.
      timestamp = { authority: 'noop', digest: encodeHex(digest), time: head.signed_at, noop: true };
    } else {
      try {
        timestamp = await requestTimestamp(this.o.tsaUrl, digest);
        this.tsaFailing = false;
      } catch (err) {
        this.tsaFailing = true;
        this.failures++;
        this.o.log.warn(
          { tenant_id: tenantId, tree_size: head.tree_size, err: (err as Error).message },
          'anchor timestamp: no token; the anchor is recorded without one',
        );
        await this.announce(anchor, { attestation: 'timestamp', witnessId: null, reason: 'unreachable' });
        return;
      }
    }
    await this.record(anchor, 'timestamp', () =>
      this.store.anchors.recordTimestamp(tenantId, head.tree_size, timestamp),
    );
  }

  private async cosign(anchor: StoredHead, client: WitnessClient, i: number): Promise<void> {
    const { tenantId, head } = anchor;
    try {
      const last = await client.lastSize(head.log_id);
      if (last !== undefined && last > head.tree_size) {
        throw new Error(`the witness has cosigned size ${last}, beyond this head's ${head.tree_size}`);
      }
      const proof =
        last === undefined ? [] : await this.store.proofs.consistency(tenantId, last, head.tree_size);
      const witness = await client.cosign(head, proof);
      this.witnessFailing[i] = false;
      await this.record(anchor, `witness ${witness.witness_id}`, () =>
        this.store.anchors.recordWitness(tenantId, head.tree_size, witness),
      );
    } catch (err) {
      this.witnessFailing[i] = true;
      this.failures++;
      const refused = err instanceof CosignatureRefused;
      if (refused) this.refused++;
      this.o.log.warn(
        {
          tenant_id: tenantId,
          tree_size: head.tree_size,
          witness: i + 1,
          witness_id: client.pin.id,
          witness_url: client.pin.url,
          err: (err as Error).message,
        },
        refused
          ? 'anchor witness: cosignature refused, not from the pinned witness; nothing stored'
          : 'anchor witness: no cosignature; the anchor is recorded without it',
      );
      await this.announce(anchor, {
        attestation: 'witness',
        witnessId: client.pin.id,
        reason: refused ? 'refused' : 'unreachable',
      });
    }
  }

  /** `attestation.failed` to the tenant's subscribers; a failure to write it is only logged. */
  private async announce(anchor: StoredHead, f: Omit<AttestationFailure, 'treeSize'>): Promise<void> {
    try {
      await this.store.notify.runOutbox(
        attestationFailed(anchor.tenantId, new Date().toISOString(), {
          ...f,
          treeSize: anchor.head.tree_size,
        }),
      );
    } catch (err) {
      this.o.log.warn(
        { tenant_id: anchor.tenantId, err: (err as Error).message },
        'anchor attestation: the attestation.failed event could not be written',
      );
    }
  }

  private async record(anchor: StoredHead, what: string, write: () => Promise<void>): Promise<void> {
    try {
      await write();
      this.o.log.info(
        { tenant_id: anchor.tenantId, tree_size: anchor.head.tree_size },
        `anchor ${what} recorded`,
      );
    } catch (err) {
      this.o.log.warn(
        { tenant_id: anchor.tenantId, err: (err as Error).message },
        `anchor ${what}: not recorded`,
      );
    }
  }
}
