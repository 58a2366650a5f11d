// The callback receiver of the compose files (demo/receive.ts) as a process: it prints a callback
// whose Standard Webhooks signature verifies, once however often it is retried, refuses any other
// with 401 and prints nothing for it, and does not start without a valid secret.
import test from 'ava';
import { signature } from '../src/callbacks/signature.js';
import { receiveScript, runScript, startReceiveScript } from './support/processes.js';
import { TEST_WEBHOOK_SECRET } from './support/receiver.js';

const post = (url: string, body: string, headers: Record<string, string>) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

const signed = (id: string, body: string, secret = TEST_WEBHOOK_SECRET) => {
  const timestamp = Math.floor(Date.now() / 1000);
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature(secret, id, timestamp, body) };
};

test('the receiver prints each callback whose signature verifies, once, and refuses the others with 401', async (t) => {
  const receiver = await startReceiveScript({ CALLBACK_SECRET: TEST_WEBHOOK_SECRET, RECEIVER_HOST: '127.0.0.1', RECEIVER_PORT: '0' });
  try {
    const body = '{"status":"ISSUED"}';
    t.is((await post(receiver.url, body, {})).status, 401);
    t.is((await post(receiver.url, body, signed('msg_1', body, 'whsec_dGhpcyBpcyBhbm90aGVyIHNlY3JldCBrZXkh'))).status, 401);
    t.is((await post(receiver.url, body, signed('msg_2', body))).status, 204);
    t.is((await post(receiver.url, body, signed('msg_2', body))).status, 204);
    // The receiver's output has caught up once a later callback is in it.
    t.is((await post(receiver.url, '{"status":"FULFILLED"}', signed('msg_3', '{"status":"FULFILLED"}'))).status, 204);
    for (let i = 0; i < 100 && receiver.callbacks.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    t.deepEqual(receiver.callbacks, [
      { webhook_id: 'msg_2', body: { status: 'ISSUED' } },
      { webhook_id: 'msg_3', body: { status: 'FULFILLED' } },
    ]);
  } finally {
    receiver.stop();
  }
});

test('the receiver does not start without a valid callback secret, or with a bad port', async (t) => {
  const noSecret = await runScript(receiveScript, [], { RECEIVER_PORT: '0' });
  t.is(noSecret.code, 1);
  t.regex(noSecret.stderr, /receiver: CALLBACK_SECRET must be/);
  const badPort = await runScript(receiveScript, [], { CALLBACK_SECRET: TEST_WEBHOOK_SECRET, RECEIVER_PORT: 'eighty' });
  t.is(badPort.code, 1);
  t.regex(badPort.stderr, /receiver: RECEIVER_PORT must be a port number/);
});
