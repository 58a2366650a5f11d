// A callback receiver to try a deployment with (compose.yaml's `receiver`, docs/deployment.md):
// it listens on RECEIVER_HOST:RECEIVER_PORT (default 0.0.0.0:8090), checks each callback's
// Standard Webhooks signature with CALLBACK_SECRET (the secret the connector signs with) and
// prints each one that verifies as one JSON line on stdout, `{webhook_id, body}`; any other
// request gets 401, which the connector retries. It stops on SIGTERM or SIGINT. For trying the
// connector only: it keeps what it received in memory, and logs claim values.
import { isWebhookSecret } from '../src/config/callbacks.js';
import { startCallbackReceiver } from './receiver.js';

const secret = process.env['CALLBACK_SECRET'] ?? '';
const host = process.env['RECEIVER_HOST'] || '0.0.0.0';
const port = Number(process.env['RECEIVER_PORT'] || '8090');
if (!isWebhookSecret(secret)) {
  process.stderr.write('receiver: CALLBACK_SECRET must be the connector\'s callback secret (whsec_ + 24-64 bytes in base64)\n');
  process.exit(1);
}
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(`receiver: RECEIVER_PORT must be a port number, not ${JSON.stringify(process.env['RECEIVER_PORT'])}\n`);
  process.exit(1);
}
const receiver = await startCallbackReceiver(secret, {
  host,
  port,
  onCallback: ({ webhookId, body }) => process.stdout.write(`${JSON.stringify({ webhook_id: webhookId, body })}\n`),
});
process.stderr.write(`receiver: listening at ${receiver.url}\n`);
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void receiver.close().then(() => process.exit(0)));
