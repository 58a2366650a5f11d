// The egress guard on its own, against real loopback listeners that count every connection: each
// address notation and special-purpose range refused before any connection, a name resolving to
// loopback, every redirect hop checked, the connection made to the very address checked, and the
// bounds on time and size. With EGRESS_ALLOW_PRIVATE_NETWORKS's switch on, the same requests
// reach the listeners, so a refusal seen here is the guard's and not a dead address.
import test from 'ava';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config/config.js';
import { createEgress, isPublicAddress, type Egress, type EgressHooks, type EgressRequest } from '../src/egress/egress.js';

interface Listener {
  readonly port: number;
  readonly url: (path: string, host?: string) => string;
  connections(): number;
  /** The Host header of each request, in order. */
  readonly hosts: string[];
  close(): Promise<void>;
}

const listen = async (address = '127.0.0.1', handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => void res.end('ok')): Promise<Listener> => {
  let connections = 0;
  const hosts: string[] = [];
  const server = createServer((req, res) => {
    hosts.push(req.headers.host ?? '');
    handle(req, res);
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: (path, host = address) => `http://${host}:${port}${path}`,
    connections: () => connections,
    hosts,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

const closed = createEgress({ allowPrivateNetworks: false });
const open = createEgress({ allowPrivateNetworks: true });

const get = (egress: Egress, url: string, extra: Partial<Extract<EgressRequest, { method: 'GET' }>> = {}) =>
  egress.request({ method: 'GET', url, timeoutMs: 5000, maxBytes: 1024, ...extra });

// --- which addresses are public, row by row

const refusedAddresses: readonly (readonly [string, string])[] = [
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', '"this network"'],
  ['10.1.2.3', 'private'],
  ['100.64.0.1', 'shared address space (CGNAT)'],
  ['100.100.100.200', 'Alibaba Cloud metadata (CGNAT)'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['169.254.169.254', 'cloud metadata (link-local)'],
  ['169.254.0.1', 'link-local'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.0.0.192', 'Oracle Cloud metadata (IETF protocol assignments)'],
  ['192.0.2.1', 'documentation'],
  ['192.88.99.1', '6to4 relay anycast'],
  ['192.168.1.1', 'private'],
  ['198.18.0.1', 'benchmarking'],
  ['198.51.100.1', 'documentation'],
  ['203.0.113.1', 'documentation'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'limited broadcast'],
  ['168.63.129.16', 'Azure platform endpoint'],
  ['::', 'IPv6 unspecified'],
  ['::1', 'IPv6 loopback'],
  ['0:0:0:0:0:0:0:1', 'IPv6 loopback, uncompressed'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback in hex'],
  ['0:0:0:0:0:ffff:7f00:1', 'IPv4-mapped loopback, uncompressed'],
  ['::ffff:10.0.0.1', 'IPv4-mapped private'],
  ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
  ['::127.0.0.1', 'IPv4-compatible loopback'],
  ['::8.8.8.8', 'IPv4-compatible (deprecated, refused whatever it carries)'],
  ['::ffff:0:127.0.0.1', 'IPv4-translated loopback'],
  ['::ffff:0:a00:1', 'IPv4-translated private in hex'],
  ['64:ff9b::127.0.0.1', 'NAT64 of loopback'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 of the metadata address'],
  ['64:ff9b:1::a00:1', 'local-use NAT64'],
  ['2002:7f00:1::1', '6to4 of loopback'],
  ['2002:a00:1::', '6to4 of a private address'],
  ['2002:a9fe:a9fe::1', '6to4 of the metadata address'],
  ['fc00::1', 'unique-local'],
  ['fd00:ec2::254', 'AWS metadata (unique-local)'],
  ['fe80::1', 'link-local'],
  ['fe80::1%lo', 'link-local with a zone'],
  ['fec0::1', 'site-local'],
  ['ff02::1', 'multicast'],
  ['100::1', 'discard-only'],
  ['2001::1', 'Teredo (IETF protocol assignments)'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation'],
  ['5f00::1', 'outside global unicast'],
  ['localhost', 'a name, not an address'],
  ['2130706433', 'not an address as written (the URL parser reads it as 127.0.0.1)'],
  ['', 'empty'],
];

for (const [address, why] of refusedAddresses) {
  test(`${JSON.stringify(address)} is not public: ${why}`, (t) => {
    t.false(isPublicAddress(address));
  });
}

test('public IPv4 and global IPv6 addresses are public, also when mapped, NAT64 or 6to4 carries a public IPv4', (t) => {
  for (const address of ['8.8.8.8', '93.184.215.14', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001::1', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1']) {
    t.true(isPublicAddress(address), address);
  }
});

// --- each notation of a URL's host, against a listener that must see no connection

/** Host notations of this machine; `reaches`: a loopback listener on 127.0.0.1 gets the connection with the switch on. */
const notations: readonly (readonly [string, string, boolean])[] = [
  ['127.0.0.1', 'dotted decimal', true],
  ['127.1', 'short form', true],
  ['127.0.1', 'short form of three parts', true],
  ['2130706433', 'one decimal number', true],
  ['017700000001', 'one octal number', true],
  ['0177.0.0.1', 'octal part', true],
  ['0x7f.0.0.1', 'hexadecimal part', true],
  ['0x7f000001', 'one hexadecimal number', true],
  ['0.0.0.0', 'the unspecified address, which Linux connects to this host', true],
  ['localhost', 'a name that resolves to loopback', true],
  ['LocalHost', 'the same name in capitals', true],
  ['[::ffff:127.0.0.1]', 'IPv4-mapped IPv6', true],
  ['[::ffff:7f00:1]', 'IPv4-mapped IPv6 in hex', true],
  ['[::1]', 'IPv6 loopback', false],
  ['[::]', 'IPv6 unspecified', false],
  ['[::127.0.0.1]', 'IPv4-compatible IPv6', false],
  ['[::ffff:0:127.0.0.1]', 'IPv4-translated IPv6', false],
  ['[64:ff9b::127.0.0.1]', 'NAT64', false],
  ['[2002:7f00:1::]', '6to4', false],
  ['169.254.169.254', 'the cloud metadata address', false],
];

for (const [host, why, reaches] of notations) {
  test(`http://${host}:<port>/ is refused before any connection (${why})`, async (t) => {
    const listener = await listen();
    try {
      const refused = await get(closed, listener.url('/', host));
      t.is(refused._tag, 'Left');
      if (refused._tag === 'Left') {
        t.is(refused.left.kind, 'refused');
        t.regex(refused.left.detail, /^(names|resolves to) a private or reserved address$/);
      }
      t.is(listener.connections(), 0);
      if (reaches) {
        const allowed = await get(open, listener.url('/', host));
        t.is(allowed._tag === 'Right' && allowed.right.status, 200, 'the switch on reaches the listener');
        t.is(listener.connections(), 1);
      }
    } finally {
      await listener.close();
    }
  });
}

// --- names: resolved once, every address checked, the connection to what was checked

test('a name is refused when any one of its addresses is private, and nothing is connected', async (t) => {
  const listener = await listen();
  try {
    const egress = createEgress({ allowPrivateNetworks: false }, { resolve: async () => [{ address: '93.184.215.14', family: 4 }, { address: '127.0.0.1', family: 4 }] });
    const refused = await get(egress, listener.url('/', 'status.example'));
    t.like(refused, { _tag: 'Left', left: { kind: 'refused', detail: 'resolves to a private or reserved address' } });
    t.is(listener.connections(), 0);
  } finally {
    await listener.close();
  }
});

test('the socket connects to the address resolved and checked, without a second lookup', async (t) => {
  const listener = await listen();
  try {
    const asked: string[] = [];
    // status.example has no address in DNS: only the hook's answer can lead to the listener.
    const hooks: EgressHooks = {
      resolve: async (hostname) => (asked.push(hostname), [{ address: '127.0.0.1', family: 4 }]),
      isPublic: (address) => address === '127.0.0.1',
    };
    const answer = await get(createEgress({ allowPrivateNetworks: false }, hooks), listener.url('/', 'status.example'));
    t.is(answer._tag === 'Right' && answer.right.status, 200);
    t.deepEqual(asked, ['status.example']);
    t.deepEqual(listener.hosts, [`status.example:${listener.port}`], 'the request still names the host');
  } finally {
    await listener.close();
  }
});

test('a URL that is not http(s), or carries credentials, is refused before anything is resolved', async (t) => {
  const asked: string[] = [];
  const egress = createEgress({ allowPrivateNetworks: true }, { resolve: async (hostname) => (asked.push(hostname), []) });
  for (const url of ['file:///etc/passwd', 'ftp://status.example/', 'gopher://status.example/', 'http://user:pw@status.example/', 'http://user@status.example/', 'not a url']) {
    const refused = await get(egress, url);
    t.like(refused, { _tag: 'Left', left: { kind: 'refused' } }, url);
  }
  t.deepEqual(asked, []);
});

// --- redirects

test('every redirect hop is checked like the first: one to a private address is refused and its listener sees no connection', async (t) => {
  const inside = await listen('127.0.0.2');
  // The redirector stands for a public server: the hook counts 127.0.0.1, and only it, as public.
  let location = '';
  const redirector = await listen('127.0.0.1', (_req, res) => void res.writeHead(302, { location }).end());
  const hooks: EgressHooks = {
    resolve: async (hostname) => [{ address: hostname === 'inside.example' ? '127.0.0.2' : '127.0.0.1', family: 4 }],
    isPublic: (address) => address === '127.0.0.1' || isPublicAddress(address),
  };
  try {
    const cases: readonly (readonly [string, string])[] = [
      [inside.url('/'), 'names a private or reserved address'],
      [inside.url('/', '2130706434'), 'names a private or reserved address'],
      [inside.url('/', '[::ffff:127.0.0.2]'), 'names a private or reserved address'],
      [inside.url('/', 'inside.example'), 'resolves to a private or reserved address'],
      ['file:///etc/passwd', 'is not an http(s) URL without credentials'],
    ];
    for (const [target, detail] of cases) {
      location = target;
      const refused = await get(createEgress({ allowPrivateNetworks: false }, hooks), redirector.url('/'), { maxRedirects: 3 });
      t.like(refused, { _tag: 'Left', left: { kind: 'refused', detail: `was redirected to a URL that ${detail}` } }, target);
    }
    t.is(inside.connections(), 0);
    location = inside.url('/');
    const followed = await get(createEgress({ allowPrivateNetworks: true }, hooks), redirector.url('/'), { maxRedirects: 3 });
    t.is(followed._tag === 'Right' && followed.right.url.href, inside.url('/'), 'with the switch on the same redirect is followed');
    t.is(inside.connections(), 1);
  } finally {
    await inside.close();
    await redirector.close();
  }
});

test("the connector's own origin (PUBLIC_URL) is reached whatever its address, only that origin, and a redirect from it is checked as usual", async (t) => {
  const own = await listen('127.0.0.1', (req, res) => (req.url === '/away' ? void res.writeHead(302, { location: inside.url('/') }).end() : void res.end('ok')));
  const inside = await listen('127.0.0.2');
  try {
    const egress = createEgress({ allowPrivateNetworks: false, ownOrigins: [new URL(own.url('/')).origin] });
    const answer = await get(egress, own.url('/list'));
    t.is(answer._tag === 'Right' && answer.right.status, 200);
    // The same address under another port, or another name, is not the connector's own origin.
    t.like(await get(egress, inside.url('/')), { _tag: 'Left', left: { kind: 'refused' } });
    t.like(await get(egress, own.url('/list', 'localhost')), { _tag: 'Left', left: { kind: 'refused' } });
    t.like(await get(egress, own.url('/away'), { maxRedirects: 3 }), { _tag: 'Left', left: { kind: 'refused', detail: 'was redirected to a URL that names a private or reserved address' } });
    t.is(inside.connections(), 0);
  } finally {
    await own.close();
    await inside.close();
  }
});

test('redirects are followed at most maxRedirects times; by default the redirect is the answer', async (t) => {
  const listener = await listen('127.0.0.1', (req, res) => {
    const n = Number(req.url!.slice(1));
    if (n === 0) res.end('arrived');
    else res.writeHead(307, { location: `/${n - 1}` }).end();
  });
  try {
    const arrived = await get(open, listener.url('/3'), { maxRedirects: 3 });
    t.is(arrived._tag === 'Right' && arrived.right.body.toString(), 'arrived');
    t.like(await get(open, listener.url('/4'), { maxRedirects: 3 }), { _tag: 'Left', left: { kind: 'redirects', detail: 'redirected more than 3 times' } });
    const unfollowed = await get(open, listener.url('/1'));
    t.is(unfollowed._tag === 'Right' && unfollowed.right.status, 307);
  } finally {
    await listener.close();
  }
});

// --- bounds

test('a body over maxBytes is cut there, and a declared length over it is not read', async (t) => {
  const listener = await listen('127.0.0.1', (req, res) => {
    if (req.url === '/declared') res.writeHead(200, { 'content-length': '100000' }).end('x'.repeat(100_000));
    else {
      // Chunked: no declared length, so the bound holds while reading.
      for (let i = 0; i < 100; i++) res.write('y'.repeat(1000));
      res.end();
    }
  });
  try {
    const streamed = await get(open, listener.url('/streamed'));
    t.like(streamed, { _tag: 'Right', right: { status: 200, truncated: true } });
    t.is(streamed._tag === 'Right' && streamed.right.body.length, 1024);
    const declared = await get(open, listener.url('/declared'));
    t.like(declared, { _tag: 'Right', right: { status: 200, truncated: true } });
    t.is(declared._tag === 'Right' && declared.right.body.length, 0);
  } finally {
    await listener.close();
  }
});

test('one time limit covers the whole exchange, and a body that breaks off is no answer', async (t) => {
  const listener = await listen('127.0.0.1', (req, res) => {
    if (req.url === '/silent') return;
    if (req.url === '/slow-body') return void res.writeHead(200, { 'content-length': '10' }).write('12345');
    res.writeHead(200, { 'content-length': '10' }).write('12345', () => res.destroy());
  });
  try {
    t.like(await get(open, listener.url('/silent'), { timeoutMs: 200 }), { _tag: 'Left', left: { kind: 'timeout', detail: 'timed out after 200 ms' } });
    t.like(await get(open, listener.url('/slow-body'), { timeoutMs: 200 }), { _tag: 'Left', left: { kind: 'timeout' } });
    t.like(await get(open, listener.url('/broken')), { _tag: 'Left', left: { kind: 'network' } });
  } finally {
    await listener.close();
  }
});

test('a POST sends its body and answers what came back; the caller can interrupt it', async (t) => {
  let received = '';
  const listener = await listen('127.0.0.1', (req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received = body;
      if (req.url === '/accepted') res.writeHead(202, { 'retry-after': '5' }).end();
    });
  });
  try {
    const answer = await open.request({ method: 'POST', url: listener.url('/accepted'), body: '{"a":1}', timeoutMs: 5000, maxBytes: 16 });
    t.like(answer, { _tag: 'Right', right: { status: 202, headers: { 'retry-after': '5' } } });
    t.is(received, '{"a":1}');
    const stop = new AbortController();
    const pending = open.request({ method: 'POST', url: listener.url('/never'), body: '{}', timeoutMs: 5000, maxBytes: 16, signal: stop.signal });
    setTimeout(() => stop.abort(), 50);
    t.like(await pending, { _tag: 'Left', left: { kind: 'network', detail: 'was interrupted' } });
  } finally {
    await listener.close();
  }
});

// --- the switch

test('EGRESS_ALLOW_PRIVATE_NETWORKS is off by default; DIDCOMM_ALLOW_PRIVATE_ENDPOINTS, its deprecated name, still sets it; the two disagreeing stop the start', (t) => {
  const switchOf = (env: Record<string, string>) => {
    const config = loadConfig(env);
    return config._tag === 'Right' ? config.right.egressAllowPrivateNetworks : config.left;
  };
  t.is(switchOf({}), false);
  t.is(switchOf({ EGRESS_ALLOW_PRIVATE_NETWORKS: 'true' }), true);
  t.is(switchOf({ DIDCOMM_ALLOW_PRIVATE_ENDPOINTS: 'true' }), true);
  t.is(switchOf({ EGRESS_ALLOW_PRIVATE_NETWORKS: 'true', DIDCOMM_ALLOW_PRIVATE_ENDPOINTS: 'true' }), true);
  t.is(switchOf({ EGRESS_ALLOW_PRIVATE_NETWORKS: 'false', DIDCOMM_ALLOW_PRIVATE_ENDPOINTS: '' }), false);
  t.deepEqual(switchOf({ EGRESS_ALLOW_PRIVATE_NETWORKS: 'false', DIDCOMM_ALLOW_PRIVATE_ENDPOINTS: 'true' }), [
    'EGRESS_ALLOW_PRIVATE_NETWORKS: set, and its deprecated name DIDCOMM_ALLOW_PRIVATE_ENDPOINTS is set to another value (unset DIDCOMM_ALLOW_PRIVATE_ENDPOINTS)',
  ]);
  t.deepEqual(switchOf({ DIDCOMM_ALLOW_PRIVATE_ENDPOINTS: 'yes' }), ['DIDCOMM_ALLOW_PRIVATE_ENDPOINTS: expected true or false, got "yes"']);
});
