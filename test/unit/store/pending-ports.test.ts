import { describe, expect, it } from 'vitest';
import { notYetOnPostgres } from '../../../src/store/postgres/pending-ports.js';

describe('a port not yet on PostgreSQL', () => {
  const port = notYetOnPostgres<{ list(tenantId: string): Promise<string[]> }>('capabilities');

  it('refuses every call as unavailable, naming the port and the method', () => {
    expect(() => port.list('acme')).toThrow(expect.objectContaining({ code: 'unavailable' }));
    expect(() => port.list('acme')).toThrow('capabilities (list) is not yet available on PostgreSQL');
  });

  it('is not mistaken for a promise when awaited', async () => {
    expect(await Promise.resolve(port)).toBe(port);
  });
});
