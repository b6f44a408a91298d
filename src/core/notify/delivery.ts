import { invalidField } from '../errors.js';

/** Why a destination stops receiving when its receiver answers 410 Gone. */
export const GONE_REASON = '410 Gone from the receiver';
/** Why a removed destination's undelivered events end. */
export const REMOVED_REASON = 'destination removed';

/** An attempt as the delivery loop reports it (store/notify-ports.ts `DeliveryAttempt`). */
export interface AttemptReport {
  outcome: 'delivered' | 'retry' | 'dead' | 'gone';
  at: string;
  nextAttemptAt: string | null;
}

/**
 * What an attempt changes: the delivery's next state and, for 410 Gone, the destination
 * disabled with its reason (its other pending deliveries end `disabled` with it). The
 * store writes this only while the reporter still holds the lease.
 */
export interface AttemptChange {
  state: 'pending' | 'delivered' | 'dead' | 'disabled';
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  disableDestination: string | null;
}

export function attemptChange(a: AttemptReport): AttemptChange {
  switch (a.outcome) {
    case 'delivered':
      return { state: 'delivered', nextAttemptAt: null, deliveredAt: a.at, disableDestination: null };
    case 'retry':
      if (a.nextAttemptAt === null)
        throw invalidField('nextAttemptAt', 'a time for the next attempt of a retry');
      return {
        state: 'pending',
        nextAttemptAt: a.nextAttemptAt,
        deliveredAt: null,
        disableDestination: null,
      };
    case 'dead':
      return { state: 'dead', nextAttemptAt: null, deliveredAt: null, disableDestination: null };
    case 'gone':
      return { state: 'disabled', nextAttemptAt: null, deliveredAt: null, disableDestination: GONE_REASON };
  }
}
