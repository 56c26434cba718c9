/**
 * The package's public surface for participants (VASPs integrating with a hub): the typed
 * API client, webhook verification, decryption of BASIC's personal data, key generation and
 * the reference receiver. `import { createHubClient, verifyWebhook } from 'travel-rule-hub'`.
 */
export {
  createHubClient,
  type HubClient,
  type HubClientOptions,
  HubProblem,
  type Problem,
  unwrap,
  type WebhookBody,
} from './client/index.js';
export type { components, paths, webhooks } from './client/schema.js';
export { createReceiver, type ReceivedEvent, type ReceiverOptions } from './participant/receiver.js';
export {
  DEFAULT_TOLERANCE_SECONDS,
  decryptPii,
  generateParticipantKeyPair,
  verifyWebhook,
  WebhookVerificationError,
} from './participant/webhooks.js';
