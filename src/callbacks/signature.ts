// Standard Webhooks signing: `webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`,
// keyed with the bytes of the tenant's `whsec_<base64>` secret.
import { createHmac, randomBytes } from 'node:crypto';
import * as t from 'io-ts';
import { withMessage } from '../http/codecs.js';

const PREFIX = 'whsec_';
const SECRET = /^whsec_[A-Za-z0-9+/]+={0,2}$/;

// Standard Webhooks asks for 24 to 64 bytes of key.
const keyOf = (secret: string): Buffer => Buffer.from(secret.slice(PREFIX.length), 'base64');

export const isWebhookSecret = (s: string): boolean => SECRET.test(s) && keyOf(s).length >= 24 && keyOf(s).length <= 64;

export const WebhookSecret = withMessage(
  t.refinement(t.string, isWebhookSecret, 'WebhookSecret'),
  'expected whsec_ followed by 24 to 64 bytes in base64',
);

export const generateWebhookSecret = (): string => `${PREFIX}${randomBytes(32).toString('base64')}`;

export const signature = (secret: string, webhookId: string, timestamp: number, body: string): string =>
  `v1,${createHmac('sha256', keyOf(secret)).update(`${webhookId}.${timestamp}.${body}`).digest('base64')}`;

/** The three Standard Webhooks headers of one attempt; `timestamp` is Unix seconds. */
export const webhookHeaders = (secret: string, webhookId: string, timestamp: number, body: string): Record<string, string> => ({
  'webhook-id': webhookId,
  'webhook-timestamp': String(timestamp),
  'webhook-signature': signature(secret, webhookId, timestamp, body),
});
