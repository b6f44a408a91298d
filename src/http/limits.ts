import type { Server } from 'node:http';
import { formatDuration, parseDuration } from '../core/duration.js';
import { invalidField } from '../core/errors.js';

/**
 * What one listener lets a client hold: time to send headers, time to send the whole
 * request, time an idle keep-alive socket stays open, and how many sockets at once.
 * Without them a client trickling a body, or a crowd of idle sockets, holds the server.
 */
export interface ServerLimits {
  headerTimeoutMs: number;
  requestTimeoutMs: number;
  idleTimeoutMs: number;
  maxConnections: number;
  bodyLimitBytes: number;
}

export const DEFAULT_SERVER_LIMITS: Readonly<ServerLimits> = Object.freeze({
  headerTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  idleTimeoutMs: 5_000,
  maxConnections: 1024,
  bodyLimitBytes: 256 * 1024,
});

/** The flag values as the commands receive them (durations as text, e.g. `10s`). */
export interface ServerLimitFlags {
  'header-timeout'?: string;
  'request-timeout'?: string;
  'idle-timeout'?: string;
  'max-connections'?: number;
}

export const TIMEOUT_BOUNDS = { minMs: 1_000, maxMs: 3_600_000 };
const MAX_CONNECTIONS = 1_000_000;

/** Parse and check the limit flags; anything absent keeps its default. */
export function serverLimits(flags: ServerLimitFlags = {}): ServerLimits {
  const d = DEFAULT_SERVER_LIMITS;
  const time = (name: keyof ServerLimitFlags, fallback: number): number => {
    const text = flags[name];
    return text === undefined ? fallback : parseDuration(name, String(text), TIMEOUT_BOUNDS);
  };
  const limits: ServerLimits = {
    headerTimeoutMs: time('header-timeout', d.headerTimeoutMs),
    requestTimeoutMs: time('request-timeout', d.requestTimeoutMs),
    idleTimeoutMs: time('idle-timeout', d.idleTimeoutMs),
    maxConnections: flags['max-connections'] ?? d.maxConnections,
    bodyLimitBytes: d.bodyLimitBytes,
  };
  const max = limits.maxConnections;
  if (!Number.isInteger(max) || max < 1 || max > MAX_CONNECTIONS) {
    throw invalidField('max-connections', `an integer between 1 and ${MAX_CONNECTIONS}`);
  }
  // Node refuses a header timeout longer than the whole-request timeout.
  if (limits.headerTimeoutMs > limits.requestTimeoutMs) {
    throw invalidField(
      'header-timeout',
      `a duration no longer than --request-timeout (${formatDuration(limits.requestTimeoutMs)})`,
    );
  }
  return limits;
}

/**
 * Options for `http(s).createServer`: Node checks header and request deadlines on a
 * sweep (30 s by default), so the sweep runs often enough that a deadline is kept to
 * within a quarter of the shortest one. A TLS handshake gets the header deadline.
 */
export function serverTimeoutOptions(limits: ServerLimits): {
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  connectionsCheckingInterval: number;
  handshakeTimeout: number;
} {
  return {
    headersTimeout: limits.headerTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.idleTimeoutMs,
    connectionsCheckingInterval: Math.min(1_000, Math.floor(limits.headerTimeoutMs / 4)),
    handshakeTimeout: limits.headerTimeoutMs,
  };
}

/** What only the created server can take: the connection cap (sockets over it are dropped at accept). */
export function applyServerLimits(server: Server, limits: ServerLimits): void {
  server.maxConnections = limits.maxConnections;
  server.headersTimeout = limits.headerTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.idleTimeoutMs;
}
