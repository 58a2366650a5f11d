// Which IP addresses the connector may connect to for a URL someone else chose: an address on the
// public internet, never one of the connector's own network or a special-purpose range (RFC 6890
// and the IANA special-purpose registries). An IPv6 address that carries an IPv4 address and
// reaches it (IPv4-mapped, `::ffff:0:a.b.c.d`, NAT64, 6to4) is judged by the IPv4 address it
// carries; an IPv6 address must otherwise be global unicast (2000::/3), which leaves out the
// unspecified and loopback addresses, IPv4-compatible `::a.b.c.d` (deprecated, RFC 4291
// 2.5.5.1), unique-local, link-local, site-local and multicast addresses.
import { BlockList, isIP } from 'node:net';

const refusedIpv4 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", the unspecified address
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (CGNAT); Alibaba Cloud's metadata service is 100.100.100.200
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local: most clouds' metadata service is 169.254.169.254
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments; Oracle Cloud's metadata service is 192.0.0.192
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the limited broadcast address
] as const) refusedIpv4.addSubnet(network, prefix, 'ipv4');
// Azure's platform endpoint (its DHCP, DNS and instance health): a public-looking cloud metadata address.
refusedIpv4.addAddress('168.63.129.16', 'ipv4');

const globalUnicast = new BlockList();
globalUnicast.addSubnet('2000::', 3, 'ipv6');

const refusedIpv6 = new BlockList();
for (const [network, prefix] of [
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID, ...)
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation
] as const) refusedIpv6.addSubnet(network, prefix, 'ipv6');

/** The eight 16-bit groups of an IPv6 address in any notation, or undefined (a zone index, say). */
const ipv6Groups = (address: string): number[] | undefined => {
  let canonical: string;
  try {
    // The URL parser writes an IPv6 host in one form: hexadecimal groups, `::` at most once.
    canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)));
  const [head, tail] = canonical.split('::') as [string, string | undefined];
  if (tail === undefined) return parse(head);
  const [before, after] = [parse(head), parse(tail)];
  return [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
};

const dottedQuad = (high: number, low: number): string => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;

/** The IPv4 address an IPv6 address carries and reaches, or undefined when it carries none. */
const embeddedIpv4 = (g: readonly number[]): string | undefined => {
  const zero = (from: number, to: number): boolean => g.slice(from, to).every((group) => group === 0);
  // ::ffff:a.b.c.d, IPv4-mapped (RFC 4291 2.5.5.2)
  if (zero(0, 5) && g[5] === 0xffff) return dottedQuad(g[6]!, g[7]!);
  // ::ffff:0:a.b.c.d, IPv4-translated (RFC 7915)
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return dottedQuad(g[6]!, g[7]!);
  // 64:ff9b::a.b.c.d, the NAT64 well-known prefix (RFC 6052)
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return dottedQuad(g[6]!, g[7]!);
  // 2002:aabb:ccdd::/48, 6to4 (RFC 3056)
  if (g[0] === 0x2002) return dottedQuad(g[1]!, g[2]!);
  return undefined;
};

/** Whether the connector may connect to this IP address (one a name resolved to, or a URL's literal host). */
export const isPublicAddress = (address: string): boolean => {
  const family = isIP(address);
  if (family === 4) return !refusedIpv4.check(address, 'ipv4');
  if (family !== 6) return false;
  const groups = ipv6Groups(address);
  if (groups === undefined || groups.length !== 8) return false;
  const ipv4 = embeddedIpv4(groups);
  if (ipv4 !== undefined) return isPublicAddress(ipv4);
  return globalUnicast.check(address, 'ipv6') && !refusedIpv6.check(address, 'ipv6');
};
