import type { PutResult } from '../store/registry-ports.js';

export const CHANGE_KINDS = [
  'actor',
  'capability',
  'permission',
  'policy',
  'task',
  'channel',
  'notification',
] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

export interface ApplyChange {
  kind: ChangeKind;
  id: string;
  result: PutResult;
  /** for an update: what changed, by --json field name */
  changed?: string[];
}

/** One planned change and how to write it; unchanged entries write nothing. */
export interface Step {
  change: ApplyChange;
  write?: () => Promise<unknown>;
}
