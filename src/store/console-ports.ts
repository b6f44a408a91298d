import type { ThemeRevision, ThemeSave } from '../core/theme/revision.js';

// Saving a theme is a use case of core (core/theme/revision.ts): its revision type lives there.
export type { ThemeRevision } from '../core/theme/revision.js';

export interface ThemeRepo {
  /** The newest revision, or undefined when the tenant has no theme. */
  current(tenantId: string): Promise<ThemeRevision | undefined>;
  /**
   * Add the next revision. With `expected`, the write happens only when the current
   * revision is still that number (0: none yet); otherwise 409 `stale_revision` and nothing
   * is written. Without it (provisioning), the new revision simply follows the newest.
   */
  save(input: ThemeSave): Promise<ThemeRevision>;
  /** The bytes of an editor logo some revision of the tenant keeps under `name`, or undefined. */
  logo(tenantId: string, name: string): Promise<Uint8Array | undefined>;
}

export interface ConsoleSession {
  tenantId: string;
  actorId: string;
  /** the token signed in with; the session ends when the token is revoked or expires */
  tokenId: string | null;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
}

export interface ConsoleSessionRepo {
  create(idHash: Uint8Array, session: ConsoleSession): Promise<void>;
  find(idHash: Uint8Array): Promise<ConsoleSession | undefined>;
  touch(idHash: Uint8Array, at: string): Promise<void>;
  delete(idHash: Uint8Array): Promise<void>;
  /** Forget expired sessions; returns how many. */
  purge(now: string): Promise<number>;
}
