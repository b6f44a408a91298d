/** What a sealed row is bound to: the additional data of its AES-GCM seal. */
export interface SealedKeyPlace {
  kind: 'signing' | 'secrets';
  /** '' for the deployment's secret-sealing key */
  tenantId: string;
  keyId: string;
}

/** A sealed key as the database holds it: nonce (12) | ciphertext | tag (16), and the KEK's id. */
export interface SealedKeyBytes {
  kekId: string;
  sealed: Uint8Array;
}

/** One key sealed in the database under a KEK (kek.ts): the private half never leaves it in clear. */
export interface SealedKeyRow extends SealedKeyPlace, SealedKeyBytes {
  createdAt: string;
  /** when it was last sealed: its creation, or the KEK rotation that re-sealed it */
  sealedAt: string;
}

/** Rows sealed under one KEK, for the rotation's progress and a replica's start check. */
export interface KekCount {
  kekId: string;
  rows: number;
}

/**
 * Sealed keys in the database (PostgreSQL only: SQLite keeps keys as files in the data dir).
 * The adapter reads and writes bytes; sealing and opening happen in the process that holds
 * the KEK.
 */
export interface SealedKeyRepo {
  get(place: SealedKeyPlace): Promise<SealedKeyRow | undefined>;
  /** Insert a new sealed key; a row already there for the place is refused (already_exists). */
  insert(row: SealedKeyRow): Promise<void>;
  /** Remove a sealed key whose store row could not be written (as Keyring.discard removes a file). */
  discard(place: SealedKeyPlace): Promise<void>;
  /**
   * The deployment's secret-sealing key: the one row of kind `secrets`, or `row` inserted when
   * there is none yet. Two processes racing both get the winner's row.
   */
  secretKey(row?: SealedKeyRow): Promise<SealedKeyRow | undefined>;
  /** How many rows each KEK sealed. */
  kekCounts(): Promise<KekCount[]>;
  /**
   * Re-seal up to `limit` rows not sealed under `targetKekId`, in one transaction: each row is
   * locked, passed to `reseal`, and written back only where it still names the KEK it was read
   * with. Answers how many rows were re-sealed (0: none is left).
   */
  resealBatch(
    targetKekId: string,
    limit: number,
    reseal: (row: SealedKeyRow) => SealedKeyBytes,
    at: string,
  ): Promise<number>;
}
