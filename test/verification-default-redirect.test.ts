// DEFAULT_REDIRECT_URI: a presentation request created without `redirect_uri` uses the
// connector's default ("omitted means connector defaults"), so a same-device wallet always has a
// redirect to follow; unset, such a request redirects nowhere, as before.
import test from 'ava';
import { isLeft, isRight } from 'fp-ts/lib/Either.js';
import { loadConfig } from '../src/config/config.js';
import { startVerificationHarness, pidQuery, type VerificationHarness } from './support/wallet/connector.js';
import { answer } from './support/wallet/presentation.js';

const DEFAULT = 'https://rp.example/after-wallet?from=connector';

let withDefault: VerificationHarness;
let withoutDefault: VerificationHarness;

test.before(async () => {
  [withDefault, withoutDefault] = await Promise.all([startVerificationHarness({ DEFAULT_REDIRECT_URI: DEFAULT }), startVerificationHarness()]);
});

test.after.always(async () => {
  await Promise.all([withDefault?.close(), withoutDefault?.close()]);
});

const presentSameDevice = async (h: VerificationHarness, body: Record<string, unknown>, flow: 'same-device' | 'cross-device' = 'same-device') => {
  const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery(), ...body }, flow);
  const posted = await answer(h.endpoints, request, { pid: { credential: await h.pid(), holder: h.holder } });
  return { posted, callback: await h.callback(created.state) };
};

test('same-device without redirect_uri: the wallet is sent to DEFAULT_REDIRECT_URI with the callback response_code', async (t) => {
  const { posted, callback } = await presentSameDevice(withDefault, {});
  t.is(posted.status, 200);
  const redirect = new URL(posted.body['redirect_uri'] as string);
  t.is(`${redirect.origin}${redirect.pathname}`, 'https://rp.example/after-wallet');
  t.is(redirect.searchParams.get('from'), 'connector');
  t.is(callback['status'], 'FULFILLED');
  t.regex(callback['responseCode'] as string, /^[A-Za-z0-9_-]{43}$/);
  t.is(redirect.searchParams.get('response_code'), callback['responseCode'] as string);
});

test('a request redirect_uri wins over DEFAULT_REDIRECT_URI; cross-device never redirects', async (t) => {
  const own = await presentSameDevice(withDefault, { redirect_uri: 'https://shop.example/done' });
  t.is(new URL(own.posted.body['redirect_uri'] as string).origin, 'https://shop.example');
  const cross = await presentSameDevice(withDefault, {}, 'cross-device');
  t.deepEqual(cross.posted.body, {});
  t.false('responseCode' in cross.callback);
});

test('without DEFAULT_REDIRECT_URI a same-device request without redirect_uri redirects nowhere', async (t) => {
  const { posted, callback } = await presentSameDevice(withoutDefault, {});
  t.is(posted.status, 200);
  t.deepEqual(posted.body, {});
  t.is(callback['status'], 'FULFILLED');
});

test('DEFAULT_REDIRECT_URI is an absolute https URL, or http on localhost, checked at start', (t) => {
  for (const good of [DEFAULT, 'http://localhost:3000/done', 'http://127.0.0.1/x', 'http://[::1]:8080/']) {
    const config = loadConfig({ DEFAULT_REDIRECT_URI: good });
    t.true(isRight(config) && config.right.defaultRedirectUri === good, good);
  }
  const defaults = loadConfig({});
  t.true(isRight(defaults) && defaults.right.defaultRedirectUri === undefined);
  for (const bad of ['http://rp.example/done', '/done', 'rp.example/done', 'https://rp.example/done#x', 'https://user:pw@rp.example/', 'javascript:alert(1)']) {
    const config = loadConfig({ DEFAULT_REDIRECT_URI: bad });
    t.true(isLeft(config), bad);
    if (isLeft(config)) {
      t.deepEqual(config.left, [
        `DEFAULT_REDIRECT_URI: expected an absolute https URL (http only on localhost) without credentials or fragment, got ${JSON.stringify(bad.replace('user:pw', '[user-info removed]'))}`,
      ]);
    }
  }
});
