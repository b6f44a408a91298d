import { describe, expect, it } from 'vitest';
import { parseListenAddress } from '../../../src/http/listen-address.js';

describe('listen address', () => {
  it('parses host:port forms', () => {
    expect(parseListenAddress('127.0.0.1:8090')).toEqual({ host: '127.0.0.1', port: 8090 });
    expect(parseListenAddress('[::1]:0')).toEqual({ host: '::1', port: 0 });
    expect(parseListenAddress('localhost:65535')).toEqual({ host: 'localhost', port: 65535 });
  });
  it('refuses anything else, naming the flag', () => {
    for (const bad of ['8090', '127.0.0.1', ':8090', '127.0.0.1:65536', 'http://x:1', '::1:80']) {
      expect(() => parseListenAddress(bad)).toThrow(/^listen: expected host:port/);
    }
  });
});
