import type { Requestable, StoredRequest } from '../../core/access-request.js';
import { facts, type RequestRow } from './access.js';
import type { DbInt } from './numbers.js';

/** The requested capability's columns an access request is judged on. */
export interface RequestableRow {
  requestable: DbInt;
  /** JSON array */
  owners: string;
  tier: DbInt;
}

export const toRequestable = (r: RequestableRow): Requestable => ({
  requestable: Number(r.requestable) === 1,
  owners: JSON.parse(r.owners) as string[],
  tier: Number(r.tier),
});

/** A request as its withdrawal is judged: with its deciders as registration stands now. */
export const toStoredRequest = (r: RequestRow, deciders: string[]): StoredRequest => ({
  ...facts(r),
  entitlementId: r.entitlement_id,
  tier: r.tier,
  deciders,
});
