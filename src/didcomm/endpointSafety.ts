// Where the connector may connect to on behalf of a DID document. A recipient's service endpoint
// and a did:web host come from documents anyone can write, so by default they may not point into
// the connector's own network: loopback, private, link-local (cloud metadata services live
// there), shared, multicast and reserved ranges are refused, and only https is allowed.
// `DIDCOMM_ALLOW_PRIVATE_ENDPOINTS=true` lifts both rules, for tests and closed networks.
//
// The check runs where the connection is made (the socket's DNS lookup), not before it, so a name
// that resolves to a public address when checked and to a private one when connecting (DNS
// rebinding) is refused all the same; every address a name resolves to must be allowed.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

export interface EndpointPolicy {
  /** DIDCOMM_ALLOW_PRIVATE_ENDPOINTS: private addresses and plain http allowed. */
  readonly allowPrivate: boolean;
}

const refused = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) refused.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 23], ['2001:db8::', 32],
  ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) refused.addSubnet(net, prefix, 'ipv6');

/** Whether the connector may connect to this IP address without the switch. */
export const isPublicAddress = (address: string): boolean => {
  const family = isIP(address);
  if (family === 4) return !refused.check(address, 'ipv4');
  if (family !== 6) return false;
  // An IPv4-mapped IPv6 address reaches the IPv4 address it carries.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isPublicAddress(mapped[1]!);
  return !refused.check(address, 'ipv6');
};

export type EndpointRefused = { readonly _tag: 'EndpointRefused'; readonly reason: string };

/** The URL when its scheme and (for an IP literal) its address are allowed; the reason otherwise. */
export const checkEndpointUrl = (text: string, policy: EndpointPolicy): URL | EndpointRefused => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { _tag: 'EndpointRefused', reason: 'not an absolute URL' };
  }
  if (url.protocol !== 'https:' && !(policy.allowPrivate && url.protocol === 'http:')) {
    return { _tag: 'EndpointRefused', reason: `scheme ${url.protocol} not allowed (https only)` };
  }
  if (url.username !== '' || url.password !== '') return { _tag: 'EndpointRefused', reason: 'credentials in the URL' };
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!policy.allowPrivate && isIP(host) !== 0 && !isPublicAddress(host)) return { _tag: 'EndpointRefused', reason: 'private or reserved address' };
  return url;
};

/** The error a refused lookup fails the connection with; its code names the reason in attempt records. */
export const PRIVATE_ADDRESS = 'EPRIVATEADDRESS';

/** A socket lookup that fails when any address the name resolves to is not public. */
export const guardedLookup = (policy: EndpointPolicy): LookupFunction | undefined =>
  policy.allowPrivate
    ? undefined
    : (hostname, options, callback) => {
        dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
          if (err) return callback(err, '', 0);
          if (addresses.length === 0 || !addresses.every((a) => isPublicAddress(a.address))) {
            return callback(Object.assign(new Error('the name resolves to a private or reserved address'), { code: PRIVATE_ADDRESS }), '', 0);
          }
          if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
          return callback(null, addresses[0]!.address, addresses[0]!.family);
        });
      };
