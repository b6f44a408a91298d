import { describe, expect, it } from 'vitest';
import { checkDestinationUrl } from '../../../src/notify/destination-url.js';
import { codedError } from '../../helpers/coded-error.js';

describe('checkDestinationUrl (the static check when a destination is configured)', () => {
  it('takes https anywhere and http only to a literal loopback address', () => {
    expect(checkDestinationUrl('url', 'https://hooks.example.com/in?x=1').hostname).toBe('hooks.example.com');
    expect(checkDestinationUrl('url', 'https://10.0.0.5:8443/in').port).toBe('8443');
    expect(checkDestinationUrl('url', 'http://127.0.0.1:9000/hook').port).toBe('9000');
    expect(checkDestinationUrl('url', 'http://127.5.6.7/hook').hostname).toBe('127.5.6.7');
    expect(checkDestinationUrl('url', 'http://[::1]:9000/hook').hostname).toBe('[::1]');
  });

  it.each([
    ['http to a name', 'http://hooks.example.com/in', /literal loopback/],
    ['http to localhost (a name, not a literal)', 'http://localhost:9000/in', /literal loopback/],
    ['http to a private address', 'http://10.0.0.1/in', /literal loopback/],
    ['http to the metadata address', 'http://169.254.169.254/latest', /literal loopback/],
    ['another scheme', 'ftp://example.com/in', /https:\/\//],
    ['a file URL', 'file:///etc/passwd', /https:\/\//],
    ['not a URL', 'hooks.example.com/in', /https:\/\//],
    ['userinfo', 'https://user:pw@hooks.example.com/in', /no credentials/],
    ['a user alone', 'https://user@hooks.example.com/in', /no credentials/],
    ['a fragment', 'https://hooks.example.com/in#x', /fragment/],
    ['an empty fragment', 'https://hooks.example.com/in#', /fragment/],
    ['port 0', 'https://hooks.example.com:0/in', /port/],
    ['a port out of range', 'https://hooks.example.com:70000/in', /https:\/\//],
    ['too long', `https://hooks.example.com/${'a'.repeat(2100)}`, /2048/],
    ['empty', '', /https:\/\//],
  ])('refuses %s with a coded invalid_request naming the field', (_name, url, why) => {
    const err = codedError(() => checkDestinationUrl('destination.url', url));
    expect(err.code).toBe('invalid_request');
    expect(err.message).toMatch(/^destination\.url: expected /);
    expect(err.message).toMatch(why);
    // a refused URL is not echoed back: it may carry a credential
    if (url.includes('pw@')) expect(err.message).not.toContain('pw');
  });
});
