import { BlockList, isIP } from 'node:net';
import { invalidField } from '../core/errors.js';

/** What an address is, for the send-time check; anything not listed is `public`. */
export type AddressClass = 'public' | 'loopback' | 'private' | 'metadata';

type Family = 'ipv4' | 'ipv6';
const subnets = (list: BlockList, family: Family, cidrs: readonly string[]): BlockList => {
  for (const c of cidrs) {
    const [net, bits] = c.split('/');
    list.addSubnet(net!, Number(bits), family);
  }
  return list;
};

// Cloud instance metadata: the one address an SSRF most wants. Listed apart so that allowing
// a private range (169.254.0.0/16, fd00::/8) never allows it by accident.
const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200', '168.63.129.16']);

const LOOPBACK = subnets(subnets(new BlockList(), 'ipv4', ['127.0.0.0/8']), 'ipv6', ['::1/128']);

const NOT_PUBLIC = subnets(
  subnets(new BlockList(), 'ipv4', [
    '0.0.0.0/8', // "this network", unspecified
    '10.0.0.0/8',
    '100.64.0.0/10', // CGNAT
    '169.254.0.0/16', // link-local
    '172.16.0.0/12',
    '192.0.0.0/24', // IETF protocol assignments
    '192.0.2.0/24', // documentation
    '192.88.99.0/24', // 6to4 relay anycast
    '192.168.0.0/16',
    '198.18.0.0/15', // benchmarking
    '198.51.100.0/24',
    '203.0.113.0/24',
    '224.0.0.0/4', // multicast
    '240.0.0.0/4', // reserved, broadcast
  ]),
  'ipv6',
  [
    '::/128', // unspecified
    '100::/64', // discard
    '2001:db8::/32', // documentation
    'fc00::/7', // unique-local
    'fe80::/10', // link-local
    'fec0::/10', // old site-local
    'ff00::/8', // multicast
  ],
);

function hexToV4(hi: string, lo: string): string {
  const h = parseInt(hi, 16);
  const l = parseInt(lo, 16);
  return `${h >> 8}.${h & 255}.${l >> 8}.${l & 255}`;
}

/**
 * An IPv6 address that carries an IPv4 one (mapped `::ffff:a.b.c.d`, the old compatible
 * `::a.b.c.d`, NAT64 `64:ff9b::/96`, dotted or in hex) is judged as that IPv4 address:
 * otherwise `::ffff:169.254.169.254` would walk past a check written for IPv4.
 */
export function embeddedV4(address: string): string | undefined {
  const a = address.toLowerCase();
  const m =
    /^(?:::ffff:|::|64:ff9b::|::ffff:0:)(\d+\.\d+\.\d+\.\d+)$/.exec(a) ??
    /^(?:::ffff:|::|64:ff9b::|::ffff:0:)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(a);
  if (!m) return undefined;
  const v4 = m[2] !== undefined ? hexToV4(m[1]!, m[2]) : m[1]!;
  return isIP(v4) === 4 ? v4 : undefined;
}

/** The class of one literal address (as `dns.lookup` answers it). */
export function addressClass(address: string): AddressClass {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const v4 = isIP(bare) === 6 ? embeddedV4(bare) : bare;
  const ip = v4 ?? bare.toLowerCase();
  const family: Family = isIP(ip) === 4 ? 'ipv4' : 'ipv6';
  if (isIP(ip) === 0) return 'private';
  if (METADATA.has(ip)) return 'metadata';
  if (LOOPBACK.check(ip, family)) return 'loopback';
  if (NOT_PUBLIC.check(ip, family)) return 'private';
  // 6to4 (2002::/16) and Teredo (2001::/32) tunnel to an IPv4 address a packet names; refuse
  // rather than decode every encoding.
  if (family === 'ipv6' && /^(2002:|2001:0?:)/.test(ip)) return 'private';
  return 'public';
}

/** One `allowPrivate` entry, parsed: a CIDR, a single address, or a host name. */
type AllowEntry = { kind: 'cidr'; list: BlockList; exact: string | null } | { kind: 'host'; name: string };

const HOST = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

function parseEntry(entry: string): AllowEntry | undefined {
  const e = entry.trim().toLowerCase();
  const [net, bits, extra] = e.split('/');
  if (extra === undefined && net && isIP(net) !== 0) {
    const family: Family = isIP(net) === 4 ? 'ipv4' : 'ipv6';
    const max = family === 'ipv4' ? 32 : 128;
    const n = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
    if (!(n >= 0 && n <= max)) return undefined;
    const list = new BlockList();
    list.addSubnet(net, n, family);
    return { kind: 'cidr', list, exact: n === max ? net : null };
  }
  if (bits === undefined && HOST.test(e)) return { kind: 'host', name: e };
  return undefined;
}

/** Checks a deployment's allow-list when it is configured (the daemon's flags, its file). */
export function checkAllowPrivate(field: string, entries: readonly string[]): string[] {
  return entries.map((e, i) => {
    if (parseEntry(e) === undefined) {
      throw invalidField(`${field}[${i}]`, 'a CIDR such as 10.0.0.0/8, an IP address, or a host name');
    }
    return e.trim();
  });
}

/**
 * Whether the deployment lists this host (as written in the URL) or a range holding this
 * address. A metadata address is allowed only by naming it exactly (or its host name): a
 * listed 169.254.0.0/16 for a link-local receiver must not open the metadata service too.
 */
export function allowListed(
  allow: readonly string[],
  host: string,
  address: string,
  cls: AddressClass,
): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  const ip = embeddedV4(address) ?? address.toLowerCase();
  const family: Family = isIP(ip) === 4 ? 'ipv4' : 'ipv6';
  for (const raw of allow) {
    const e = parseEntry(raw);
    if (!e) continue;
    if (e.kind === 'host') {
      if (e.name === h) return true;
      continue;
    }
    if (cls === 'metadata' ? e.exact === ip : e.list.check(ip, family)) return true;
  }
  return false;
}
