// Standard Webhooks signing: `webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`,
// keyed with the bytes of the tenant's `whsec_<base64>` secret (its format: src/config/callbacks.ts).
import { createHmac } from 'node:crypto';
import { webhookSecretKey } from '../config/callbacks.js';

export const signature = (secret: string, webhookId: string, timestamp: number, body: string): string =>
  `v1,${createHmac('sha256', webhookSecretKey(secret)).update(`${webhookId}.${timestamp}.${body}`).digest('base64')}`;

/** The three Standard Webhooks headers of one attempt; `timestamp` is Unix seconds. */
export const webhookHeaders = (secret: string, webhookId: string, timestamp: number, body: string): Record<string, string> => ({
  'webhook-id': webhookId,
  'webhook-timestamp': String(timestamp),
  'webhook-signature': signature(secret, webhookId, timestamp, body),
});
