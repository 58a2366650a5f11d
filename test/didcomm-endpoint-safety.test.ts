// Endpoint safety: where the connector sends a DIDComm message or reads a did:web document (anyone
// can write one): the egress guard's rules (test/egress.test.ts) and DIDComm's own, https only,
// with and without EGRESS_ALLOW_PRIVATE_NETWORKS.
import test from 'ava';
import { checkEndpointUrl } from '../src/didcomm/endpointSafety.js';

test('an endpoint URL must be https on a host that is not a private address, unless the switch is on', (t) => {
  const closed = { allowPrivateNetworks: false };
  const reason = (url: string, policy = closed) => {
    const checked = checkEndpointUrl(url, policy);
    return checked._tag === 'Left' ? checked.left.detail : 'allowed';
  };
  t.is(reason('https://agent.example/didcomm'), 'allowed');
  t.is(reason('https://93.184.215.14/'), 'allowed');
  t.is(reason('http://agent.example/'), 'uses the scheme http: (https only)');
  t.regex(reason('ftp://agent.example/'), /not an http\(s\) URL/);
  t.is(reason('https://127.0.0.1/'), 'names a private or reserved address');
  t.is(reason('https://2130706433/'), 'names a private or reserved address');
  t.is(reason('https://[::1]:8443/'), 'names a private or reserved address');
  t.is(reason('https://[::ffff:7f00:1]/'), 'names a private or reserved address');
  t.is(reason('https://169.254.169.254/latest/meta-data'), 'names a private or reserved address');
  t.regex(reason('https://user:pw@agent.example/'), /without credentials/);
  t.is(reason('/relative'), 'is not a URL');
  t.is(reason('http://127.0.0.1:8080/', { allowPrivateNetworks: true }), 'allowed');
  t.regex(reason('ftp://127.0.0.1/', { allowPrivateNetworks: true }), /not an http\(s\) URL/);
});
