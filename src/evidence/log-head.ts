import type { Sha256 } from './crypto-provider.js';
import type { LogState } from './journal-entry.js';
import { logIdFor } from './log-id.js';
import { MerkleFrontier } from './merkle-frontier.js';
import { unsignedTreeHead, type UnsignedTreeHead } from './tree-head.js';

/**
 * The head a log signs over everything it holds (evidence-format.md §6): its root is the
 * stored frontier's, so signing never rescans the log. An empty log has no head: a
 * signature over the empty tree commits to nothing.
 */
export function logHead(
  tenantId: string,
  state: LogState,
  signedAt: string,
  sha256: Sha256,
): UnsignedTreeHead {
  if (state.size < 1) throw new RangeError('an empty log has no head to sign');
  if (state.frontier.size !== state.size) {
    throw new RangeError(`the stored frontier covers ${state.frontier.size} entries, the log ${state.size}`);
  }
  const root = MerkleFrontier.fromState(state.frontier, sha256).root();
  return unsignedTreeHead(logIdFor(tenantId, sha256), state.size, root, signedAt);
}
