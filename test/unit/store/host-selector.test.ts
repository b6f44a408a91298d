import { describe, expect, it } from 'vitest';
import { HostSelector } from '../../../src/store/postgres/host-selector.js';
import { parsePgUrl } from '../../../src/store/postgres/connection-url.js';

describe('the host new connections go to', () => {
  const hosts = parsePgUrl('postgres://a:1,b:2,c:3/db').hosts;

  it('starts at the first host and stays on a host that works', () => {
    const s = new HostSelector(hosts);
    expect(s.current().host).toBe('a');
    expect(s.current().host).toBe('a');
  });

  it('moves to the next host in order when the current one fails, and wraps around', () => {
    const s = new HostSelector(hosts);
    s.failed(hosts[0]!);
    expect(s.current().host).toBe('b');
    s.failed(hosts[1]!);
    expect(s.current().host).toBe('c');
    s.failed(hosts[2]!);
    expect(s.current().host).toBe('a');
  });

  it('connections that failed together on one host move the choice once, not past the next host', () => {
    const s = new HostSelector(hosts);
    const a = s.current();
    for (let i = 0; i < 5; i++) s.failed(a);
    expect(s.current().host).toBe('b');
  });
});
