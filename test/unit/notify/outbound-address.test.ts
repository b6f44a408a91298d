import { describe, expect, it } from 'vitest';
import { addressClass, allowListed, checkAllowPrivate } from '../../../src/notify/outbound-address.js';
import { codedError } from '../../helpers/coded-error.js';

describe('address classes for the send-time check', () => {
  it.each([
    ['93.184.216.34', 'public'],
    ['2606:2800:220:1:248:1893:25c8:1946', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['100.64.0.1', 'private'],
    ['169.254.1.1', 'private'],
    ['0.0.0.0', 'private'],
    ['224.0.0.1', 'private'],
    ['255.255.255.255', 'private'],
    ['::', 'private'],
    ['fc00::1', 'private'],
    ['fe80::1%eth0', 'private'],
    ['ff02::1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a00:1', 'private'],
    ['64:ff9b::a00:1', 'private'],
    ['2002:a00:1::1', 'private'],
    ['169.254.169.254', 'metadata'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['64:ff9b::169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['not-an-address', 'private'],
  ])('%s is %s', (address, cls) => {
    expect(addressClass(address)).toBe(cls);
  });

  it('a listed CIDR, address or host allows; a metadata address only when named exactly', () => {
    expect(allowListed(['10.0.0.0/8'], 'h', '10.9.9.9', 'private')).toBe(true);
    expect(allowListed(['10.0.0.0/8'], 'h', '::ffff:10.9.9.9', 'private')).toBe(true);
    expect(allowListed(['10.0.0.0/16'], 'h', '10.9.9.9', 'private')).toBe(false);
    expect(allowListed(['hooks.internal'], 'Hooks.Internal', '10.9.9.9', 'private')).toBe(true);
    expect(allowListed(['fd00::/8'], 'h', 'fd00:ec2::254', 'metadata')).toBe(false);
    expect(allowListed(['169.254.0.0/16'], 'h', '169.254.169.254', 'metadata')).toBe(false);
    expect(allowListed(['169.254.169.254'], 'h', '169.254.169.254', 'metadata')).toBe(true);
    expect(allowListed(['169.254.169.254/32'], 'h', '169.254.169.254', 'metadata')).toBe(true);
  });

  it('checks a deployment list when it is configured, naming the entry', () => {
    expect(
      checkAllowPrivate('notify.allow_private', ['10.0.0.0/8', 'fd00::/8', 'hooks.internal', '192.168.1.5']),
    ).toHaveLength(4);
    for (const bad of ['10.0.0.0/33', '10.0.0.0/x', 'http://x', 'a/b/c', '']) {
      const err = codedError(() => checkAllowPrivate('notify.allow_private', ['10.0.0.0/8', bad]));
      expect(err.code).toBe('invalid_request');
      expect(err.message).toMatch(/^notify\.allow_private\[1\]: expected a CIDR/);
    }
  });
});
