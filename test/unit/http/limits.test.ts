import { describe, expect, it } from 'vitest';
import { DEFAULT_SERVER_LIMITS, serverLimits, serverTimeoutOptions } from '../../../src/http/limits.js';
import { loggedUrl } from '../../../src/http/logger.js';

describe('serverLimits', () => {
  it('keeps the defaults for absent flags and parses durations', () => {
    expect(serverLimits()).toEqual(DEFAULT_SERVER_LIMITS);
    expect(
      serverLimits({
        'header-timeout': '2s',
        'request-timeout': '1m',
        'idle-timeout': '3s',
        'max-connections': 7,
      }),
    ).toEqual({
      ...DEFAULT_SERVER_LIMITS,
      headerTimeoutMs: 2000,
      requestTimeoutMs: 60_000,
      idleTimeoutMs: 3000,
      maxConnections: 7,
    });
  });

  it('names the flag and what was expected', () => {
    expect(() => serverLimits({ 'idle-timeout': '5' })).toThrow(/^idle-timeout: expected a duration such as/);
    expect(() => serverLimits({ 'request-timeout': '2h' })).toThrow(
      /^request-timeout: expected a duration between 1s and 1h/,
    );
    expect(() => serverLimits({ 'max-connections': 0 })).toThrow(
      /^max-connections: expected an integer between 1 and/,
    );
    expect(() => serverLimits({ 'header-timeout': '40s' })).toThrow(
      /^header-timeout: expected a duration no longer than --request-timeout \(30s\)/,
    );
  });

  it('sweeps deadlines at a quarter of the header timeout, at most every second', () => {
    expect(serverTimeoutOptions(DEFAULT_SERVER_LIMITS).connectionsCheckingInterval).toBe(1000);
    expect(serverTimeoutOptions(serverLimits({ 'header-timeout': '2s' })).connectionsCheckingInterval).toBe(
      500,
    );
    expect(serverTimeoutOptions(DEFAULT_SERVER_LIMITS).handshakeTimeout).toBe(10_000);
  });
});

describe('loggedUrl', () => {
  it('keeps the path and never the query string', () => {
    expect(loggedUrl('/v1/task/t1')).toBe('/v1/task/t1');
    expect(loggedUrl('/v1/task?access_token=svct_x_y&a=1')).toBe('/v1/task?[redacted]');
    expect(loggedUrl('/?')).toBe('/?[redacted]');
  });
});
