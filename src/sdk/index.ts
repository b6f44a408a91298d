/**
 * The TypeScript SDK (`svc/sdk`): a client of the daemon's agent-facing routes, configured
 * from SVC_ENDPOINT, SVC_TOKEN and SVC_CA_CERT.
 */
export { SvcClient, SDK_METHODS, type Identity, type Page } from './client.js';
export { clientConfig, DEFAULT_ENDPOINT, type ClientOptions } from './config.js';
export type {
  Allowed,
  BrokeredOutcome,
  Conflict,
  DaemonFailure,
  DecisionInput,
  DecisionOutcome,
  DecisionRoute,
  Deferred,
  Outcome,
  OutcomeUnknown,
  Refused,
} from './outcome.js';
export type { Reconciled } from './reconcile.js';
export { SvcError } from '../core/errors.js';
export { verifyWebhook, type VerifyWebhookOptions, type WebhookEvent } from './webhook.js';
export type * from './wire.js';
export { OPERATIONS } from './wire.js';
