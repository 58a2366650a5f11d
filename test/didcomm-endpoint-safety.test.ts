// Endpoint safety: which addresses and schemes the connector connects to for a DID document
// (anyone can write one), with and without DIDCOMM_ALLOW_PRIVATE_ENDPOINTS.
import test from 'ava';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkEndpointUrl, isPublicAddress } from '../src/didcomm/endpointSafety.js';
import { send } from '../src/didcomm/http.js';

test('loopback, private, link-local (metadata), shared, reserved and multicast addresses are not public; others are', (t) => {
  for (const address of [
    '127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1',
    '255.255.255.255', '198.18.0.1', '::1', '::', 'fe80::1', 'fd00:ec2::254', 'fc00::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1',
    '64:ff9b::a00:1', 'not an address',
  ]) {
    t.false(isPublicAddress(address), address);
  }
  for (const address of ['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) t.true(isPublicAddress(address), address);
});

test('an endpoint URL must be https on a host that is not a private address, unless the switch is on', (t) => {
  const closed = { allowPrivate: false };
  const reason = (url: string, policy = closed) => {
    const checked = checkEndpointUrl(url, policy);
    return 'reason' in checked ? checked.reason : 'allowed';
  };
  t.is(reason('https://agent.example/didcomm'), 'allowed');
  t.is(reason('https://93.184.215.14/'), 'allowed');
  t.regex(reason('http://agent.example/'), /https only/);
  t.regex(reason('ftp://agent.example/'), /https only/);
  t.regex(reason('https://127.0.0.1/'), /private/);
  t.regex(reason('https://[::1]:8443/'), /private/);
  t.regex(reason('https://169.254.169.254/latest/meta-data'), /private/);
  t.regex(reason('https://user:pw@agent.example/'), /credentials/);
  t.regex(reason('/relative'), /absolute/);
  t.is(reason('http://127.0.0.1:8080/', { allowPrivate: true }), 'allowed');
  t.regex(reason('ftp://127.0.0.1/', { allowPrivate: true }), /https only/);
});

test('a name that resolves to loopback is refused where the socket connects, and nothing reaches the server', async (t) => {
  let reached = 0;
  const server = createServer((_req, res) => {
    reached++;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  try {
    const request = { method: 'GET' as const, url: new URL(`http://localhost:${port}/`), headers: {}, timeoutMs: 2000, maxBytes: 16, signal: new AbortController().signal };
    await t.throwsAsync(send(request, { allowPrivate: false }), { code: 'EPRIVATEADDRESS' } as never);
    t.is(reached, 0);
    const allowed = await send(request, { allowPrivate: true });
    t.is(allowed.status, 200);
    t.is(reached, 1);
  } finally {
    server.close();
  }
});

test('an answer is read up to its bound, and a redirect is not followed', async (t) => {
  const server = createServer((req, res) => {
    if (req.url === '/big') res.end('x'.repeat(100_000));
    else res.writeHead(302, { location: '/big' }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const request = (path: string) => ({ method: 'GET' as const, url: new URL(`${base}${path}`), headers: {}, timeoutMs: 2000, maxBytes: 1024, signal: new AbortController().signal });
  try {
    const big = await send(request('/big'), { allowPrivate: true });
    t.true(big.truncated);
    t.is(big.body.length, 1024);
    const redirected = await send(request('/elsewhere'), { allowPrivate: true });
    t.is(redirected.status, 302);
  } finally {
    server.close();
  }
});

test('an endpoint that does not answer in time is cut off with a timeout', async (t) => {
  const server = createServer(() => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  try {
    await t.throwsAsync(send({ method: 'POST', url, headers: {}, body: '{}', timeoutMs: 200, maxBytes: 16, signal: new AbortController().signal }, { allowPrivate: true }), { code: 'TIMEOUT' } as never);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
