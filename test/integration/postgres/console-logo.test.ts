import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../../../src/console/app.js';
import { consoleDeps } from '../../../src/console/server.js';
import { createTenant } from '../../../src/provisioning/tenant.js';
import { DataDir } from '../../../src/store/data-dir.js';
import { PgStore } from '../../../src/store/postgres/store.js';
import { call, consoleClient, type ConsoleClient, type Session } from '../../helpers/console.js';
import { dataUrl, pngBytes, SVG_TEXT } from '../../helpers/images.js';
import { freshDatabase, pgAvailable } from '../../helpers/postgres.js';
import { tmpDir } from '../../helpers/tmp.js';

const server = await pgAvailable();

/** The Settings editor's logo on the PostgreSQL store: the same answers as on SQLite. */
describe.skipIf('skip' in server)('a logo saved through the Settings editor, on PostgreSQL', () => {
  const now = new Date('2026-06-01T12:00:00.000Z');
  const tmp = tmpDir('svc-pg-console-');
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let store: PgStore;
  let dir: DataDir;
  let c: ConsoleClient;
  let alice: Session;
  let olga: Session;
  const files = () =>
    existsSync(dir.tenantAssets) ? readdirSync(dir.tenantAssets, { recursive: true }).map(String).sort() : [];

  beforeAll(async () => {
    fresh = await freshDatabase();
    store = await PgStore.open(fresh.url, { poolSize: 3 });
    dir = new DataDir(tmp.path);
    const acme = await createTenant(dir, store, { tenantId: 'acme', adminId: 'alice', now });
    const other = await createTenant(dir, store, { tenantId: 'other', adminId: 'olga', now });
    const app = buildConsole(consoleDeps(dir, store, { secure: true, authMode: 'token', clock: () => now }), {
      logger: false,
    });
    await app.ready();
    c = consoleClient(app);
    alice = await c.signIn(acme.admin_token!);
    olga = await c.signIn(other.admin_token!);
  });
  afterAll(async () => {
    await c?.app.close();
    await store?.close();
    await fresh?.drop();
    tmp.cleanup();
  });

  const save = (data_url: string, revision: number) =>
    call(c, alice, '/api/settings/appearance', {
      method: 'POST',
      body: {
        revision,
        settings: {
          appearance: 'light',
          accent: '#aa3300',
          bg: '#ffffff',
          surface: '#f4f4f4',
          text: '#111111',
          font_sans: 'system-ui, sans-serif',
          logo: { data_url, alt: 'Acme' },
        },
      },
    });

  it('names it /tenant-assets/logo-<sha256>.png, serves the exact bytes to the tenant only, writes no asset file', async () => {
    const before = files();
    expect((await save(dataUrl('image/png', SVG_TEXT), 0)).body).toMatchObject({
      field: 'settings.logo.data_url',
    });
    expect((await save(dataUrl('image/png', Buffer.from('not a png')), 0)).status).toBe(400);
    const png = pngBytes(8, 8, [0x30, 0x60, 0x90]);
    expect((await save(dataUrl('image/png', png), 0)).status).toBe(200);
    const url = `/tenant-assets/logo-${createHash('sha256').update(png).digest('hex')}.png`;
    const theme = await call(c, alice, '/api/theme');
    expect(theme.body).toMatchObject({ revision: 1, theme: { logo: { url, alt: 'Acme' } } });
    expect(JSON.stringify(theme.body)).not.toContain('data:');
    const served = await call(c, alice, url);
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.raw.equals(png)).toBe(true);
    expect((await call(c, undefined, url)).status).toBe(401);
    expect((await call(c, olga, url)).status).toBe(404);
    expect(files()).toEqual(before);
  });
});
