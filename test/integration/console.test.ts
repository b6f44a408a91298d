import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadUiBundle } from '../../src/console/ui-files.js';
import { installTheme } from '../../src/provisioning/theme.js';
import { revokeToken } from '../../src/provisioning/token.js';
import { call, consoleOf, type ConsoleClient, type Session } from '../helpers/console.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { dataUrl, pngBytes, SVG_TEXT, WOFF2_BYTES } from '../helpers/images.js';
import { capability, PERMIT_ALL, register } from '../helpers/registry.js';
import { tmpDir } from '../helpers/tmp.js';

const pay = (over: Record<string, unknown> = {}) => ({
  tenant_id: 'acme',
  actor_id: 'bot',
  capability: 'payments.send',
  action: 'write',
  task_id: 't1',
  effect_key_step: 'pay-1',
  amount_usd: 25,
  ...over,
});

/**
 * A Set-Cookie value as its name, value and attributes: attribute order carries no meaning
 * (RFC 6265 section 5.2), so the attributes are compared as a sorted list, each exactly.
 */
const cookieParts = (setCookie: string) => {
  const [pair, ...attributes] = setCookie.split('; ');
  const eq = pair!.indexOf('=');
  return { name: pair!.slice(0, eq), value: pair!.slice(eq + 1), attributes: attributes.sort() };
};

/** A CSP header as its directives, in order; whitespace after `;` carries no meaning (CSP3 2.2.1). */
const cspDirectives = (header: unknown) =>
  String(header)
    .split(';')
    .map((d) => d.trim());

/** The console's page policy, as strict as it has ever been. */
const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
];

const settings = (over: Record<string, unknown> = {}) => ({
  appearance: 'light',
  accent: '#aa3300',
  bg: '#ffffff',
  surface: '#f4f4f4',
  text: '#111111',
  font_sans: 'Inter, system-ui, sans-serif',
  logo: null,
  ...over,
});

describe('operator console routes (app.inject, real SQLite)', () => {
  let f: Fixture;
  let c: ConsoleClient;
  let tokens: Record<'alice' | 'bob' | 'bot' | 'erin' | 'olga' | 'opal', string>;
  let alice: Session;
  let bob: Session;
  const daemonPost = (url: string, payload: object, token: string) =>
    f.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${token}` }, payload });

  beforeEach(async () => {
    f = await fixture();
    const human = (id: string, roles: string[]) =>
      f.store.actors.add({
        tenantId: 'acme',
        id,
        kind: 'human',
        roles: roles as never,
        managerId: null,
        certSubject: null,
        displayName: null,
        createdAt: f.now.value.toISOString(),
      });
    await human('bob', ['approver']);
    await human('erin', []);
    await human('opal', ['operator']);
    await register(f.store, 'acme', {
      caps: [
        capability('acme', 'payments.send', {
          actions: ['write'],
          irreversible: true,
          tier: 2,
          costMicros: 10_000_000n,
        }),
        capability('acme', 'crm.read', { actions: ['read'] }),
      ],
      grants: [
        ['bot', 'payments.send'],
        ['bot', 'crm.read'],
      ],
      tasks: [{ id: 't1', sponsor: 'alice', budget: 100_000_000n }],
      policy: PERMIT_ALL,
    });
    tokens = {
      alice: f.adminToken,
      bob: await f.token('acme', 'bob'),
      bot: await f.token('acme', 'bot'),
      erin: await f.token('acme', 'erin'),
      opal: await f.token('acme', 'opal'),
      olga: await f.token('other', 'olga'),
    };
    c = await consoleOf(f);
    alice = await c.signIn(tokens.alice);
    bob = await c.signIn(tokens.bob);
  });
  afterEach(async () => {
    await c.app.close();
    await f.close();
  });

  describe('sign-in and sessions', () => {
    it('exchanges a token for an HttpOnly, Secure, SameSite=Strict, expiring __Host- cookie, stored hashed', async () => {
      const r = await c.app.inject({
        method: 'POST',
        url: '/api/session',
        headers: { authorization: `Bearer ${tokens.alice}` },
        payload: {},
      });
      expect(r.statusCode).toBe(200);
      const cookie = String(r.headers['set-cookie']);
      const parts = cookieParts(cookie);
      expect(parts.name).toBe('__Host-svc_session');
      expect(parts.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(parts.attributes).toEqual(['HttpOnly', 'Max-Age=28800', 'Path=/', 'SameSite=Strict', 'Secure']);
      expect(r.json()).toMatchObject({
        tenant_id: 'acme',
        actor_id: 'alice',
        roles: ['administrator', 'operator', 'approver'],
      });
      const secret = cookie.split(';')[0]!.split('=')[1]!;
      const rows = f.store.db.prepare('SELECT id_hash FROM console_sessions').all() as { id_hash: Buffer }[];
      const hashes = rows.map((x) => x.id_hash.toString('hex'));
      expect(hashes).toContain(createHash('sha256').update(secret).digest('hex'));
      expect(JSON.stringify(f.store.db.prepare('SELECT * FROM console_sessions').all())).not.toContain(
        secret,
      );
    });

    it('leaves out Secure and the __Host- prefix only on plain HTTP', async () => {
      const plain = await consoleOf(f, { secure: false });
      const s = await plain.signIn(tokens.alice);
      const parts = cookieParts(s.setCookie);
      expect(parts.name).toBe('svc_session');
      expect(parts.attributes).toEqual(['HttpOnly', 'Max-Age=28800', 'Path=/', 'SameSite=Strict']);
      await plain.app.close();
    });

    it('refuses no token, an unknown token, an agent and a human without a role', async () => {
      const post = (headers: Record<string, string>) =>
        c.app.inject({ method: 'POST', url: '/api/session', headers, payload: {} });
      expect((await post({})).statusCode).toBe(401);
      expect((await post({ authorization: 'Bearer svct_0000000000000000_nope' })).statusCode).toBe(401);
      expect((await post({ authorization: `Bearer ${tokens.bot}` })).statusCode).toBe(403);
      expect((await post({ authorization: `Bearer ${tokens.erin}` })).statusCode).toBe(403);
    });

    it('rotates at sign-in: the cookie presented before signing in is ended', async () => {
      const r = await c.app.inject({
        method: 'POST',
        url: '/api/session',
        headers: { authorization: `Bearer ${tokens.alice}`, cookie: alice.cookie },
        payload: {},
      });
      expect(r.statusCode).toBe(200);
      expect(String(r.headers['set-cookie']).split(';')[0]).not.toBe(alice.cookie);
      expect((await call(c, alice, '/api/session')).status).toBe(401);
    });

    it('signs out server side (CSRF required), so a kept cookie is worthless', async () => {
      expect(
        (await call(c, alice, '/api/session/sign-out', { method: 'POST', body: {}, csrf: null })).status,
      ).toBe(403);
      const out = await call(c, alice, '/api/session/sign-out', { method: 'POST', body: {} });
      expect(out.status).toBe(200);
      expect(String(out.headers['set-cookie'])).toMatch(/Max-Age=0/);
      expect((await call(c, alice, '/api/settings/appearance')).status).toBe(401);
    });

    it('ends the session when its token is revoked, and when it idles out', async () => {
      const erinBob = await c.signIn(tokens.bob);
      const id = tokens.bob.split('_')[1]!;
      await revokeToken(f.store, { tenantId: 'acme', tokenId: id, now: f.now.value });
      expect((await call(c, erinBob, '/api/approvals')).status).toBe(401);
      f.now.value = new Date(f.now.value.getTime() + 31 * 60 * 1000);
      expect((await call(c, alice, '/api/approvals')).status).toBe(401);
    });

    it('refuses every data route without a session', async () => {
      for (const url of [
        '/api/theme',
        '/api/settings/appearance',
        '/tenant-assets/' + 'a'.repeat(64) + '.png',
        '/api/approvals',
        '/api/records',
        '/api/records/rcp_x',
        '/api/spend',
        '/api/agents',
        '/api/capabilities',
        '/api/policies',
        '/api/integrations',
        '/api/session',
      ]) {
        const r = await call(c, undefined, url);
        expect(r.status, url).toBe(401);
        expect(r.body.code).toBe('unauthenticated');
      }
      const post = await call(c, undefined, '/api/settings/appearance', {
        method: 'POST',
        body: { revision: 0, settings: settings() },
      });
      expect(post.status).toBe(401);
    });

    it('sends the strict page headers on every answer', async () => {
      for (const r of [
        await call(c, alice, '/api/session'),
        await call(c, undefined, '/api/theme'),
        await call(c, undefined, '/nope'),
      ]) {
        expect(cspDirectives(r.headers['content-security-policy'])).toEqual(CONSOLE_CSP);
        expect(r.headers['x-content-type-options']).toBe('nosniff');
        expect(r.headers['x-frame-options']).toBe('DENY');
        expect(r.headers['referrer-policy']).toBe('no-referrer');
      }
    });
  });

  describe('CSRF', () => {
    it('refuses a POST without the token, with a wrong one, with another session’s, and from another origin', async () => {
      const body = { revision: 0, settings: settings() };
      const url = '/api/settings/appearance';
      const other = await c.signIn(tokens.alice);
      for (const csrf of [null, 'x'.repeat(43), other.csrf]) {
        const r = await call(c, alice, url, { method: 'POST', body, csrf });
        expect(r.status).toBe(403);
        expect(r.body.code).toBe('csrf_failed');
      }
      const foreign = await call(c, alice, url, {
        method: 'POST',
        body,
        headers: { origin: 'https://evil.example' },
      });
      expect(foreign.status).toBe(403);
      expect((await call(c, alice, '/api/settings/appearance')).body.revision).toBe(0);
      expect((await call(c, alice, url, { method: 'POST', body })).status).toBe(200);
    });
  });

  describe('appearance', () => {
    it('answers 404 for /api/theme until a theme is stored, and the default editor document at revision 0', async () => {
      const r = await call(c, alice, '/api/theme');
      expect(r.status).toBe(404);
      const doc = await call(c, alice, '/api/settings/appearance');
      expect(doc.status).toBe(200);
      expect(doc.body).toMatchObject({
        revision: 0,
        settings: { appearance: 'dark', logo: null },
        contrast_warnings: [],
      });
    });

    it('saves as an administrator, derives all twelve tokens, and refuses a stale revision without overwriting', async () => {
      const url = '/api/settings/appearance';
      const first = await call(c, alice, url, {
        method: 'POST',
        body: { revision: 0, settings: settings() },
      });
      expect(first.status).toBe(200);
      expect(first.body.revision).toBe(1);
      const theme = (await call(c, alice, '/api/theme')).body;
      expect(theme.revision).toBe(1);
      expect(Object.keys(theme.theme.colors)).toHaveLength(12);
      expect(theme.theme.colors.accent).toBe('#aa3300');

      const stale = await call(c, alice, url, {
        method: 'POST',
        body: { revision: 0, settings: settings({ accent: '#006600' }) },
      });
      expect(stale.status).toBe(409);
      expect(stale.body.code).toBe('stale_revision');
      expect(stale.body.reason).toMatch(/someone else changed/);
      const after = (await call(c, alice, url)).body;
      expect(after.revision).toBe(1);
      expect(after.settings.accent).toBe('#aa3300');
    });

    it('refuses a non-administrator', async () => {
      const r = await call(c, bob, '/api/settings/appearance', {
        method: 'POST',
        body: { revision: 0, settings: settings() },
      });
      expect(r.status).toBe(403);
      expect((await call(c, bob, '/api/settings/appearance')).status).toBe(200);
    });

    it.each([
      [
        'an SVG logo',
        { logo: { data_url: dataUrl('image/svg+xml', SVG_TEXT), alt: 'x' } },
        'settings.logo.data_url',
        /SVG can carry executable markup/,
      ],
      [
        'SVG disguised as PNG',
        { logo: { data_url: dataUrl('image/png', SVG_TEXT), alt: 'x' } },
        'settings.logo.data_url',
        /SVG can carry executable markup/,
      ],
      ['a non-hex colour', { accent: 'red' }, 'settings.accent', /hex colour/],
      [
        'a font with url(',
        { font_sans: 'x, url(https://cdn.example/f.woff2)' },
        'settings.font_sans',
        /font family/,
      ],
      ['a font with a rule', { font_sans: 'a;}body{color:red' }, 'settings.font_sans', /font family/],
      ['a wrong mode', { appearance: 'sepia' }, 'settings.appearance', /dark|light/],
    ])('refuses %s, naming the field', async (_name, patch, field, reason) => {
      const r = await call(c, alice, '/api/settings/appearance', {
        method: 'POST',
        body: { revision: 0, settings: settings(patch) },
      });
      expect(r.status).toBe(400);
      expect(r.body.field).toBe(field);
      expect(r.body.reason).toMatch(reason);
      expect((await call(c, alice, '/api/settings/appearance')).body.revision).toBe(0);
    });

    it('refuses unreadable colours and a mode the colours contradict, naming every failing pair, writing nothing', async () => {
      const url = '/api/settings/appearance';
      const low = await call(c, alice, url, {
        method: 'POST',
        body: { revision: 0, settings: settings({ text: '#9a9a9a' }) },
      });
      expect(low.status).toBe(400);
      expect(low.body).toMatchObject({ code: 'contrast_too_low', field: 'settings.text' });
      expect(low.body.reason).toMatch(/text on bg 2\.\d+:1 \(page text\)/);
      expect(low.body.reason).toMatch(/muted on surface/);
      // the newcomer's trap: "dark" over light colours, which kept light colours under dark controls
      const mode = await call(c, alice, url, {
        method: 'POST',
        body: { revision: 0, settings: settings({ appearance: 'dark' }) },
      });
      expect(mode.status).toBe(400);
      expect(mode.body.field).toBe('settings.appearance');
      expect(mode.body.reason).toMatch(/dark mode needs a background darker than its text/);
      const link = await call(c, alice, url, {
        method: 'POST',
        body: { revision: 0, settings: settings({ accent: '#ffd0e0' }) },
      });
      expect(link.body).toMatchObject({ code: 'contrast_too_low', field: 'settings.accent' });
      expect((await call(c, alice, url)).body.revision).toBe(0);
      expect((await call(c, alice, '/api/theme')).status).toBe(404);
    });

    it('takes a logo up to 256 KiB and refuses a larger one with the field named', async () => {
      const big = Buffer.concat([pngBytes(), randomBytes(250 * 1024)]);
      const ok = await call(c, alice, '/api/settings/appearance', {
        method: 'POST',
        body: {
          revision: 0,
          settings: settings({ logo: { data_url: dataUrl('image/png', big), alt: 'big' } }),
        },
      });
      expect(ok.status).toBe(200);
      const tooBig = Buffer.concat([pngBytes(), randomBytes(260 * 1024)]);
      const r = await call(c, alice, '/api/settings/appearance', {
        method: 'POST',
        body: {
          revision: 1,
          settings: settings({ logo: { data_url: dataUrl('image/png', tooBig), alt: 'big' } }),
        },
      });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({
        field: 'settings.logo.data_url',
        reason: expect.stringMatching(/256 KiB/),
      });
    });

    it('keeps a PNG logo and shows it back as a data URL', async () => {
      const logo = { data_url: dataUrl('image/png', pngBytes()), alt: 'Acme' };
      const r = await call(c, alice, '/api/settings/appearance', {
        method: 'POST',
        body: { revision: 0, settings: settings({ logo }) },
      });
      expect(r.status).toBe(200);
      expect(r.body.settings.logo).toEqual(logo);
    });
  });

  describe('a logo saved through the Settings editor', () => {
    const files = (dir: string): string[] =>
      existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String).sort() : [];
    const save = (logo: { data_url: string; alt: string } | null, revision = 0) =>
      call(c, alice, '/api/settings/appearance', {
        method: 'POST',
        body: { revision, settings: settings({ logo }) },
      });

    it('is named /tenant-assets/logo-<sha256>.png in GET /api/theme and served from the store to the tenant only', async () => {
      const before = files(f.dir.tenantAssets);
      const png = pngBytes(6, 6, [0x10, 0x80, 0x20]);
      const sha = createHash('sha256').update(png).digest('hex');
      const saved = await save({ data_url: dataUrl('image/png', png), alt: 'Acme' });
      expect(saved.status).toBe(200);

      const theme = await call(c, alice, '/api/theme');
      expect(theme.body.theme.logo).toEqual({ url: `/tenant-assets/logo-${sha}.png`, alt: 'Acme' });
      expect(JSON.stringify(theme.body)).not.toContain('data:');

      const url = `/tenant-assets/logo-${sha}.png`;
      const served = await call(c, bob, url);
      expect(served.status).toBe(200);
      expect(served.headers['content-type']).toBe('image/png');
      expect(served.headers['x-content-type-options']).toBe('nosniff');
      expect(served.raw.equals(png)).toBe(true);
      expect((await call(c, undefined, url)).status).toBe(401);
      const olga = await c.signIn(tokens.olga);
      expect((await call(c, olga, url)).status).toBe(404);
      // the provisioned asset store is not written by the editor
      expect(files(f.dir.tenantAssets)).toEqual(before);
      // the editor still reads its logo back as a data URL
      const doc = (await call(c, alice, '/api/settings/appearance')).body;
      expect(doc.settings.logo).toEqual({ data_url: dataUrl('image/png', png), alt: 'Acme' });

      // a later revision with another logo leaves the first one served for the older revision
      const next = pngBytes(3, 3);
      expect((await save({ data_url: dataUrl('image/png', next), alt: 'New' }, 1)).status).toBe(200);
      const nextSha = createHash('sha256').update(next).digest('hex');
      expect((await call(c, alice, '/api/theme')).body.theme.logo.url).toBe(
        `/tenant-assets/logo-${nextSha}.png`,
      );
      expect((await call(c, alice, url)).raw.equals(png)).toBe(true);
    });

    it('names a JPEG logo .jpg, and answers 404 for a logo name no revision keeps', async () => {
      const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(64)]);
      expect((await save({ data_url: dataUrl('image/jpeg', jpeg), alt: '' })).status).toBe(200);
      const sha = createHash('sha256').update(jpeg).digest('hex');
      const theme = (await call(c, alice, '/api/theme')).body.theme;
      expect(theme.logo.url).toBe(`/tenant-assets/logo-${sha}.jpg`);
      expect((await call(c, alice, theme.logo.url)).headers['content-type']).toBe('image/jpeg');
      for (const name of [`logo-${sha}.png`, `logo-${'0'.repeat(64)}.jpg`, `logo-${sha}.svg`]) {
        expect((await call(c, alice, `/tenant-assets/${name}`)).status).toBe(404);
      }
    });

    it.each([
      ['an SVG', dataUrl('image/svg+xml', SVG_TEXT), /SVG can carry executable markup/],
      [
        'a PNG-labelled JPEG',
        dataUrl('image/png', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2])),
        /match image\/png/,
      ],
      ['PNG-labelled text', dataUrl('image/png', Buffer.from('not an image at all')), /match image\/png/],
    ])('refuses %s, stores nothing and writes no file', async (_name, data_url, reason) => {
      const before = files(f.dir.tenantAssets);
      const r = await save({ data_url, alt: 'x' });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({
        field: 'settings.logo.data_url',
        reason: expect.stringMatching(reason),
      });
      expect((await call(c, alice, '/api/theme')).status).toBe(404);
      expect(files(f.dir.tenantAssets)).toEqual(before);
    });

    it('does not serve a stored logo whose bytes no longer hash to its name', async () => {
      const png = pngBytes(5, 5);
      await save({ data_url: dataUrl('image/png', png), alt: 'x' });
      const url = (await call(c, alice, '/api/theme')).body.theme.logo.url as string;
      f.store.db.prepare('UPDATE themes SET logo = ? WHERE logo_name IS NOT NULL').run(pngBytes(7, 7));
      expect((await call(c, alice, url)).status).toBe(404);
    });

    it('names a data: URL kept by a revision written before logos had their own column', async () => {
      const png = pngBytes(4, 4, [1, 2, 3]);
      await save({ data_url: dataUrl('image/png', png), alt: 'Old' });
      const row = f.store.db.prepare('SELECT document FROM themes').get() as { document: string };
      const doc = JSON.parse(row.document);
      doc.logo.url = dataUrl('image/png', png);
      f.store.db
        .prepare('UPDATE themes SET document = ?, logo = NULL, logo_name = NULL')
        .run(JSON.stringify(doc));
      const sha = createHash('sha256').update(png).digest('hex');
      const theme = (await call(c, alice, '/api/theme')).body.theme;
      expect(theme.logo).toEqual({ url: `/tenant-assets/logo-${sha}.png`, alt: 'Old' });
      expect((await call(c, alice, theme.logo.url)).raw.equals(png)).toBe(true);
    });
  });

  describe('theme install and managed assets', () => {
    let brand: { path: string; cleanup: () => void };
    const themeFile = (over: Record<string, unknown> = {}) => {
      const file = join(brand.path, 'theme.json');
      writeFileSync(
        file,
        JSON.stringify({
          version: 1,
          appearance: 'light',
          colors: {
            bg: '#ffffff',
            surface: '#f6f8fa',
            surface2: '#eef1f4',
            text: '#1f2328',
            muted: '#59636e',
            dim: '#818b98',
            line: '#d1d9e0',
            accent: 'rgb(9, 105, 218)',
            'accent-soft': '#ddf4ff',
            ok: '#1a7f37',
            warn: '#9a6700',
            bad: '#cf222e',
          },
          fonts: {
            sans: { family: 'system-ui, sans-serif', url: null },
            mono: { family: 'monospace', url: null },
          },
          logo: { url: '/tenant-assets/logo.png', alt: 'Acme' },
          ...over,
        }),
      );
      return file;
    };
    const install = (
      file: string,
      assetsDir: string | null = join(brand.path, 'assets'),
      tenantId = 'acme',
    ) =>
      installTheme(f.store, f.dir, {
        tenantId,
        file,
        ...(assetsDir !== null ? { assetsDir } : {}),
        now: f.now.value,
      });

    beforeEach(() => {
      brand = tmpDir();
      mkdirSync(join(brand.path, 'assets'));
      writeFileSync(join(brand.path, 'assets', 'logo.png'), pngBytes());
      writeFileSync(join(brand.path, 'assets', 'evil.png'), SVG_TEXT);
      writeFileSync(join(brand.path, 'outside.png'), pngBytes());
    });
    afterEach(() => brand.cleanup());

    it('places the logo content-addressed (0600 in a 0700 directory) and serves it to the tenant only', async () => {
      const result = await install(themeFile());
      const sha = createHash('sha256').update(pngBytes()).digest('hex');
      expect(result).toMatchObject({
        tenant_id: 'acme',
        revision: 1,
        assets: [{ field: 'logo.url', url: `/tenant-assets/${sha}.png`, content_type: 'image/png' }],
      });
      const path = join(f.dir.tenantAssets, 'acme', `${sha}.png`);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(statSync(join(f.dir.tenantAssets, 'acme')).mode & 0o777).toBe(0o700);

      const theme = await call(c, alice, '/api/theme');
      expect(theme.body.theme.logo.url).toBe(`/tenant-assets/${sha}.png`);
      const file = await call(c, bob, `/tenant-assets/${sha}.png`);
      expect(file.status).toBe(200);
      expect(file.headers['content-type']).toBe('image/png');
      expect(file.headers['x-content-type-options']).toBe('nosniff');
      expect(file.raw.equals(pngBytes())).toBe(true);
      expect((await call(c, undefined, `/tenant-assets/${sha}.png`)).status).toBe(401);
      const olga = await c.signIn(tokens.olga);
      expect((await call(c, olga, `/tenant-assets/${sha}.png`)).status).toBe(404);
      const doc = (await call(c, alice, '/api/settings/appearance')).body;
      expect(doc.settings.logo.data_url).toBe(dataUrl('image/png', pngBytes()));
    });

    it('refuses a theme file or logo that is a FIFO, a directory or a 150 MB sparse file, naming the field, unread', async () => {
      const fifo = join(brand.path, 'assets', 'fifo.png');
      execFileSync('mkfifo', [fifo]);
      mkdirSync(join(brand.path, 'assets', 'dir.png'));
      const sparse = join(brand.path, 'assets', 'sparse.png');
      writeFileSync(sparse, '');
      truncateSync(sparse, 150 * 1024 * 1024);
      const before = process.memoryUsage().rss;
      for (const [path, reason] of [
        [fifo, /is a FIFO, not a regular file/],
        [join(brand.path, 'assets', 'dir.png'), /is a directory, not a regular file/],
        [sparse, /is larger than 1048576 bytes/],
      ] as const) {
        await expect(install(path)).rejects.toMatchObject({
          field: 'file',
          reason: expect.stringMatching(reason),
        });
      }
      for (const [name, reason] of [
        ['fifo.png', /is a FIFO, not a regular file/],
        ['dir.png', /is a directory, not a regular file/],
        ['sparse.png', /is larger than 1048576 bytes/],
      ] as const) {
        await expect(
          install(themeFile({ logo: { url: `/tenant-assets/${name}`, alt: 'x' } })),
        ).rejects.toMatchObject({
          field: 'logo.url',
          reason: expect.stringMatching(reason),
        });
      }
      // Neither 150 MB file was read into memory (a whole read took the file's size and more).
      expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
      expect((await call(c, alice, '/api/theme')).status).toBe(404);
    });

    it('places a font by its bytes and serves it as font/woff2', async () => {
      writeFileSync(join(brand.path, 'assets', 'brand.woff2'), WOFF2_BYTES);
      const r = await install(
        themeFile({
          fonts: {
            sans: { family: 'Brand, sans-serif', url: '/tenant-assets/brand.woff2' },
            mono: { family: 'monospace', url: null },
          },
        }),
      );
      const font = r.assets.find((a) => a.field === 'fonts.sans.url')!;
      expect(font.content_type).toBe('font/woff2');
      const served = await call(c, alice, font.url);
      expect(served.status).toBe(200);
      expect(served.headers['content-type']).toBe('font/woff2');
      await expect(
        install(
          themeFile({
            fonts: {
              sans: { family: 'X', url: '/tenant-assets/logo.png' },
              mono: { family: 'm', url: null },
            },
          }),
        ),
      ).rejects.toMatchObject({ field: 'fonts.sans.url', reason: expect.stringMatching(/not a WOFF2/) });
    });

    it('answers 404 for unknown and traversing asset names', async () => {
      await install(themeFile());
      for (const name of [
        'nope.png',
        'a'.repeat(64) + '.png',
        '..%2fsvc.db',
        '%2e%2e%2f%2e%2e%2fsvc.db',
        '..%5csvc.db',
        'logo.png',
      ]) {
        const r = await call(c, alice, `/tenant-assets/${name}`);
        expect(r.status, name).toBe(404);
      }
    });

    it.each([
      [
        'an external URL',
        { logo: { url: 'https://cdn.example.com/logo.png', alt: '' } },
        'logo.url',
        /external URLs are refused/,
      ],
      [
        'a protocol-relative URL',
        { logo: { url: '//cdn.example.com/logo.png', alt: '' } },
        'logo.url',
        /external URLs are refused/,
      ],
      ['traversal', { logo: { url: '/tenant-assets/../svc.db', alt: '' } }, 'logo.url', /traversal/],
      [
        'encoded traversal',
        { logo: { url: '/tenant-assets/%2e%2e/svc.db', alt: '' } },
        'logo.url',
        /traversal/,
      ],
      [
        'backslash traversal',
        { logo: { url: '/tenant-assets/..\\svc.db', alt: '' } },
        'logo.url',
        /traversal/,
      ],
      [
        'an external font',
        {
          fonts: {
            sans: { family: 'X', url: 'https://fonts.example.com/x.woff2' },
            mono: { family: 'm', url: null },
          },
        },
        'fonts.sans.url',
        /external/,
      ],
      [
        'SVG named .png',
        { logo: { url: '/tenant-assets/evil.png', alt: '' } },
        'logo.url',
        /SVG can carry executable markup/,
      ],
      [
        'a file outside --assets',
        { logo: { url: '/tenant-assets/outside.png', alt: '' } },
        'logo.url',
        /not in/,
      ],
    ])('refuses %s with the field named, storing nothing', async (_n, patch, field, reason) => {
      await expect(install(themeFile(patch))).rejects.toMatchObject({
        field,
        reason: expect.stringMatching(reason),
      });
      expect((await call(c, alice, '/api/theme')).status).toBe(404);
    });

    it('needs --assets when the theme names a file', async () => {
      await expect(install(themeFile(), null)).rejects.toMatchObject({
        field: 'logo.url',
        reason: expect.stringMatching(/--assets/),
      });
    });
  });

  describe('approvals', () => {
    it('lists what would run, decides through the shared store function, and the agent’s resume succeeds', async () => {
      const deferred = (
        await daemonPost('/v1/action', pay({ intent: 'pay the invoice' }), tokens.bot)
      ).json();
      expect(deferred.decision).toBe('deferred');
      const list = await call(c, bob, '/api/approvals');
      expect(list.status).toBe(200);
      expect(list.body.items).toHaveLength(1);
      const a = list.body.items[0];
      expect(a).toMatchObject({
        approval_id: deferred.approval.approval_id,
        capability: 'payments.send',
        amount_usd: 25,
        task_id: 't1',
        requester_id: 'bot',
        status: 'pending',
        intent: 'pay the invoice',
      });
      expect(a.request_digest).toMatch(/^[0-9a-f]{64}$/);

      const url = `/api/approvals/${a.approval_id}/decision`;
      expect(
        (await call(c, bob, url, { method: 'POST', body: { decision: 'approve' }, csrf: null })).status,
      ).toBe(403);
      // An operator who is not an approver (the init administrator approves, so not alice).
      const opal = await c.signIn(tokens.opal);
      const byOpal = await call(c, opal, url, { method: 'POST', body: { decision: 'approve' } });
      expect(byOpal.status).toBe(403);
      const ok = await call(c, bob, url, { method: 'POST', body: { decision: 'approve', note: 'checked' } });
      expect(ok.status).toBe(200);
      expect(ok.body.approval).toMatchObject({ status: 'approved', decided_by: 'bob', channel: 'console' });
      const again = await daemonPost(
        `/v1/approvals/${a.approval_id}/decision`,
        { decision: 'deny' },
        tokens.bob,
      );
      expect(again.statusCode).toBe(409);
      const resumed = await daemonPost('/v1/action/resume', pay({ intent: 'pay the invoice' }), tokens.bot);
      expect(resumed.statusCode).toBe(200);
      expect(resumed.json().decision).toBe('allowed');
      expect((await call(c, bob, '/api/approvals')).body.items).toHaveLength(0);
      expect(
        (
          await call(c, bob, '/api/approvals/apr_nope/decision', {
            method: 'POST',
            body: { decision: 'deny' },
          })
        ).status,
      ).toBe(404);
    });
  });

  describe('approvals, paged', () => {
    it('every pending approval is reachable: newest first, next pages, and filters by requester and capability', async () => {
      await f.store.actors.add({
        tenantId: 'acme',
        id: 'bot2',
        kind: 'agent',
        roles: [],
        managerId: 'alice',
        certSubject: null,
        displayName: null,
        createdAt: f.now.value.toISOString(),
      });
      await f.store.permissions.grant({
        tenantId: 'acme',
        actorId: 'bot2',
        capability: 'payments.send',
        grantedAt: f.now.value.toISOString(),
      });
      const bot2 = await f.token('acme', 'bot2');
      const made: string[] = [];
      for (let i = 0; i < 7; i++) {
        const [actor, token] = i % 3 === 2 ? ['bot2', bot2] : ['bot', tokens.bot];
        const r = await daemonPost('/v1/action', pay({ actor_id: actor, effect_key_step: `p-${i}` }), token);
        expect(r.statusCode, r.body).toBe(202);
        made.push(r.json().approval.approval_id as string);
        f.now.value = new Date(f.now.value.getTime() + 1000);
      }
      const newestFirst = [...made].reverse();
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const q: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
        const page = await call(c, bob, `/api/approvals?limit=3${q}`);
        expect(page.status).toBe(200);
        seen.push(...(page.body.items as { approval_id: string }[]).map((a) => a.approval_id));
        cursor = page.body.next_cursor as string | null;
      } while (cursor !== null);
      expect(seen).toEqual(newestFirst);

      const ids = async (query: string) =>
        ((await call(c, bob, `/api/approvals?${query}`)).body.items as { approval_id: string }[]).map(
          (a) => a.approval_id,
        );
      expect(await ids('requester=bot2')).toEqual([made[5], made[2]]);
      expect(await ids('capability=payments.send&limit=200')).toEqual(newestFirst);
      expect(await ids('capability=crm.read')).toEqual([]);
      expect((await call(c, bob, '/api/approvals?cursor=nope')).status).toBe(400);
    });
  });

  describe('records, spend and the read-only views', () => {
    beforeEach(async () => {
      expect(
        (
          await daemonPost(
            '/v1/action',
            pay({ capability: 'crm.read', action: 'read', effect_key_step: 'r1', amount_usd: 2 }),
            tokens.bot,
          )
        ).statusCode,
      ).toBe(200);
      expect(
        (
          await daemonPost(
            '/v1/action',
            pay({ capability: 'crm.read', action: 'read', effect_key_step: 'r2', amount_usd: 500 }),
            tokens.bot,
          )
        ).statusCode,
      ).toBe(403);
      await daemonPost('/v1/action', pay(), tokens.bot);
    });

    it('lists receipts newest first with a kind, filters and searches them, and shows one in detail', async () => {
      const all = (await call(c, alice, '/api/records')).body.items;
      expect(all.length).toBeGreaterThanOrEqual(3);
      const sequences = all.map((r: { sequence: number }) => r.sequence);
      expect(sequences).toEqual([...sequences].sort((a, b) => b - a));
      expect(all[0]).toMatchObject({ kind: 'decision', capability: 'payments.send', outcome: 'deferred' });
      const crm = (await call(c, alice, '/api/records?capability=crm.read')).body.items;
      expect(crm.map((r: { capability: string }) => r.capability)).toEqual(['crm.read', 'crm.read']);
      const refused = (await call(c, alice, '/api/records?outcome=refused')).body.items;
      expect(refused).toHaveLength(1);
      expect(refused[0]).toMatchObject({ capability: 'crm.read', allowed: false, code: 'budget_exceeded' });
      expect((await call(c, alice, '/api/records?code=budget_exceeded')).body.items).toEqual(refused);
      expect((await call(c, alice, '/api/records?kind=decision&actor_id=bot')).body.items).toHaveLength(
        all.length,
      );
      expect((await call(c, alice, '/api/records?kind=approval')).body.items).toEqual([]);
      expect((await call(c, alice, '/api/records?actor_id=alice')).body.items).toEqual([]);
      expect((await call(c, alice, '/api/records?task_id=t1')).body.items.length).toBe(all.length);
      expect((await call(c, alice, '/api/records?until=2000-01-01T00:00:00Z')).body.items).toEqual([]);
      expect((await call(c, alice, '/api/records?since=bad')).status).toBe(400);
      const badKind = await call(c, alice, '/api/records?kind=nope');
      expect(badKind.status).toBe(400);
      expect(badKind.body).toMatchObject({ code: 'invalid_request', field: 'kind' });
      expect(badKind.body.reason).toMatch(/^kind: /);
      expect((await call(c, alice, '/api/records?task_id=nope')).status).toBe(404);
      // the keyset: each page continues below the last sequence the previous one examined
      const page = (await call(c, alice, '/api/records?limit=1')).body;
      expect(page.items).toHaveLength(1);
      expect(page.next_cursor).toBe(String(page.items[0].sequence));
      const next = (await call(c, alice, `/api/records?limit=1&cursor=${page.next_cursor}`)).body;
      expect(next.items[0].sequence).toBeLessThan(page.items[0].sequence);
      expect((await call(c, alice, `/api/records?limit=200`)).body.next_cursor).toBeNull();
      expect((await call(c, alice, '/api/records?cursor=-1')).status).toBe(400);
      const one = await call(c, alice, `/api/records/${all[0].receipt_id}`);
      expect(one.status).toBe(200);
      expect(one.body.record_hash).toMatch(/^[0-9a-f]{64}$/);
      expect((await call(c, alice, '/api/records/rcp_nope')).status).toBe(404);
      // the proof route answers as the daemon's ?proof=true does: null until an anchor covers it
      const proof = await call(c, alice, `/api/records/${all[0].receipt_id}/proof`);
      expect(proof.status).toBe(200);
      expect(proof.body).toEqual({ ...one.body, proof: null });
      expect((await call(c, alice, '/api/records/rcp_nope/proof')).status).toBe(404);
    });

    it('searches the published intent, actor, capability and ids, case-insensitively, never a private field', async () => {
      const r = await daemonPost(
        '/v1/action',
        pay({
          capability: 'crm.read',
          action: 'read',
          effect_key_step: 'find-me',
          amount_usd: 1,
          intent: 'Look up the Customer of order 1045',
          correlation_id: 'corr-private-7781',
        }),
        tokens.bot,
      );
      expect(r.statusCode).toBe(200);
      const receiptId = r.json().receipt.receipt_id as string;
      const found = async (q: string) =>
        (
          (await call(c, alice, `/api/records?q=${encodeURIComponent(q)}`)).body.items as {
            receipt_id: string;
          }[]
        ).map((x) => x.receipt_id);
      expect(await found('customer OF order')).toEqual([receiptId]);
      expect(await found('FIND-ME')).toEqual([receiptId]);
      expect(await found(receiptId.slice(4, 20))).toEqual([receiptId]);
      expect(await found(r.json().intent_id as string)).toContain(receiptId);
      expect((await found('crm.read')).length).toBe(3);
      expect(await found('corr-private-7781')).toEqual([]);
      expect((await call(c, alice, `/api/records?q=${'x'.repeat(201)}`)).status).toBe(400);
    });

    it('keeps each reader to the receipts it may read: an approver with no task reads none of the agent’s', async () => {
      expect((await call(c, bob, '/api/records')).body.items).toEqual([]);
      expect((await call(c, bob, '/api/records?q=crm')).body.items).toEqual([]);
      expect((await call(c, alice, '/api/records?q=crm')).body.items).toHaveLength(2);
    });

    it('sums the overview from bounded reads, for operators, administrators and auditors only', async () => {
      const o = await call(c, alice, '/api/overview');
      expect(o.status).toBe(200);
      const at = new Date(f.now.value);
      expect(o.body.generated_at).toBe(at.toISOString());
      expect(o.body.decisions.hours).toHaveLength(24);
      expect(o.body.decisions.hours.at(-1)).toEqual({
        hour: `${at.toISOString().slice(0, 13)}:00:00Z`,
        allowed: 1,
        refused: 1,
        deferred: 1,
      });
      expect(o.body.decisions.last_24h).toEqual({ allowed: 1, refused: 1, deferred: 1 });
      expect(o.body.decisions.this_hour).toEqual({ allowed: 1, refused: 1, deferred: 1 });
      expect(o.body.decisions.refusal_codes).toEqual([{ code: 'budget_exceeded', count: 1 }]);
      expect(o.body.decisions.records_by_kind).toEqual([{ kind: 'decision', count: 3 }]);
      expect(o.body.approvals).toMatchObject({
        pending: 1,
        oldest: [{ capability: 'payments.send', requester_id: 'bot', amount_usd: 25, age_seconds: 0 }],
      });
      expect(o.body.spend).toEqual([
        { task_id: 't1', budget_usd: 100, reserved_usd: 2, remaining_usd: 98, burn: 0.02 },
      ]);
      expect(o.body.anchors).toEqual({
        journal_size: 3,
        anchored_size: 0,
        first_unanchored_at: at.toISOString(),
        latest: null,
      });
      expect(o.body.notifications).toEqual({ pending: 0, dead: 0, disabled: 0, failing_destinations: [] });
      // the journal's whole-tenant readers only: an approver lands on approvals instead
      expect((await call(c, bob, '/api/overview')).status).toBe(403);
      const opal = await c.signIn(tokens.opal);
      expect((await call(c, opal, '/api/overview')).status).toBe(200);
      // an hour on, the approval has aged and this hour is empty; the day still holds all three
      f.now.value = new Date(at.getTime() + 3_600_000);
      alice = await c.signIn(tokens.alice); // a session lives less long than that
      const later = (await call(c, alice, '/api/overview')).body;
      expect(later.approvals.oldest[0].age_seconds).toBe(3600);
      expect(later.decisions.this_hour).toEqual({ allowed: 0, refused: 0, deferred: 0 });
      expect(later.decisions.last_24h).toEqual({ allowed: 1, refused: 1, deferred: 1 });
    });

    it('lists decided and expired approvals as history: who decided, when and through which channel', async () => {
      const pending = (await call(c, bob, '/api/approvals')).body.items;
      expect(pending).toHaveLength(1);
      expect((await call(c, bob, '/api/approvals?status=history')).body.items).toEqual([]);
      const id = pending[0].approval_id as string;
      const decided = await call(c, bob, `/api/approvals/${id}/decision`, {
        method: 'POST',
        body: { decision: 'deny', note: 'not this one' },
      });
      expect(decided.status).toBe(200);
      const history = (await call(c, bob, '/api/approvals?status=history')).body;
      expect(history.items).toEqual([
        expect.objectContaining({
          approval_id: id,
          status: 'denied',
          decided_by: 'bob',
          decided_at: f.now.value.toISOString(),
          channel: 'console',
          note: 'not this one',
        }),
      ]);
      expect(history.next_cursor).toBeNull();
      // one that nobody decided joins the history when it expires
      const second = (await daemonPost('/v1/action', pay({ effect_key_step: 'pay-2' }), tokens.bot)).json();
      f.now.value = new Date(f.now.value.getTime() + 2 * 86_400_000);
      bob = await c.signIn(tokens.bob); // a session lives less long than that
      const later = (await call(c, bob, '/api/approvals?status=history&limit=1')).body;
      expect(later.items).toEqual([
        expect.objectContaining({
          approval_id: second.approval.approval_id,
          status: 'expired',
          decided_by: null,
        }),
      ]);
      const older = (await call(c, bob, `/api/approvals?status=history&limit=1&cursor=${later.next_cursor}`))
        .body;
      expect(older.items.map((a: { approval_id: string }) => a.approval_id)).toEqual([id]);
      expect((await call(c, bob, '/api/approvals?status=nope')).status).toBe(400);
    });

    it('shows per-task budget, reserved and remaining', async () => {
      const spend = (await call(c, alice, '/api/spend')).body.items;
      expect(spend).toEqual([
        expect.objectContaining({ task_id: 't1', budget_usd: 100, reserved_usd: 2, remaining_usd: 98 }),
      ]);
    });

    it('shows agents, capabilities, the Cedar text and integrations to operators, and refuses an approver', async () => {
      const agents = (await call(c, alice, '/api/agents')).body.items;
      expect(agents).toEqual([
        expect.objectContaining({
          actor_id: 'bot',
          manager_id: 'alice',
          permissions: ['crm.read', 'payments.send'],
        }),
      ]);
      const caps = (await call(c, alice, '/api/capabilities')).body.items;
      expect(caps.map((x: { name: string }) => x.name).sort()).toEqual(['crm.read', 'payments.send']);
      expect((await call(c, alice, '/api/policies')).body.policy.text).toBe(PERMIT_ALL);
      expect((await call(c, alice, '/api/integrations')).body).toEqual({ configured: false, items: [] });
      for (const url of ['/api/agents', '/api/capabilities', '/api/policies', '/api/integrations']) {
        expect((await call(c, bob, url)).status, url).toBe(403);
      }
    });
  });

  describe('listener separation and the OpenAPI document', () => {
    it('serves no console route on the daemon app, and no daemon route on the console app', async () => {
      for (const url of [
        '/api/theme',
        '/api/settings/appearance',
        '/api/session',
        '/tenant-assets/x.png',
        '/api/approvals',
        '/',
      ]) {
        const r = await f.app.inject({
          method: 'GET',
          url,
          headers: { authorization: `Bearer ${tokens.alice}` },
        });
        expect(r.statusCode, url).toBe(404);
      }
      for (const url of ['/v1/capabilities', '/v1/approvals', '/healthz', '/v1/openapi.json']) {
        const r = await call(c, alice, url, { headers: { authorization: `Bearer ${tokens.alice}` } });
        expect(r.status, url).toBe(404);
      }
    });

    it('publishes a valid OpenAPI 3.1 document with the appearance envelope and its revision', async () => {
      const doc = (await call(c, undefined, '/api/openapi.json')).body;
      const result = await new Validator().validate(doc);
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
      expect(doc.paths['/api/settings/appearance'].post.security).toEqual([
        { consoleSession: [], csrfToken: [] },
      ]);
      expect(doc.components.schemas.AppearanceUpdate.required).toEqual(['revision', 'settings']);
      expect(Object.keys(doc.paths)).toEqual(
        expect.arrayContaining(['/api/theme', '/tenant-assets/{name}', '/api/approvals/{id}/decision']),
      );
    });
  });

  describe('the pages', () => {
    it('serves index.html uncached and the hashed bundle immutable with its content type; nothing else', async () => {
      const dir = tmpDir();
      mkdirSync(join(dir.path, 'assets'));
      writeFileSync(
        join(dir.path, 'index.html'),
        '<!doctype html><script type="module" src="/assets/index-abc123.js"></script>',
      );
      writeFileSync(join(dir.path, 'assets', 'index-abc123.js'), 'export {};');
      writeFileSync(join(dir.path, 'assets', 'index-abc123.css'), 'body{}');
      writeFileSync(join(dir.path, 'assets', 'notes.txt'), 'not served');
      const ui = loadUiBundle(dir.path);
      const withUi = await consoleOf(f, { ...(ui ? { ui } : {}) });
      const index = await call(withUi, undefined, '/');
      expect(index.status).toBe(200);
      expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(index.headers['cache-control']).toBe('no-cache');
      expect(index.headers['content-security-policy']).toMatch(/script-src 'self';/);
      const js = await call(withUi, undefined, '/assets/index-abc123.js');
      expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect((await call(withUi, undefined, '/assets/index-abc123.css')).headers['content-type']).toBe(
        'text/css; charset=utf-8',
      );
      for (const url of ['/assets/notes.txt', '/assets/..%2findex.html', '/assets/nope.js', '/index.html']) {
        expect((await call(withUi, undefined, url)).status, url).toBe(404);
      }
      await withUi.app.close();
      dir.cleanup();
    });

    it('lists the same page headers on a page, an asset, API answers, a 404 and a refusal, and nothing looser', async () => {
      const dir = tmpDir();
      mkdirSync(join(dir.path, 'assets'));
      writeFileSync(join(dir.path, 'index.html'), '<!doctype html>');
      writeFileSync(join(dir.path, 'assets', 'index-abc123.js'), 'export {};');
      const withUi = await consoleOf(f, { ui: loadUiBundle(dir.path)! });
      const s = await withUi.signIn(tokens.alice);
      const page = {
        'x-frame-options': 'DENY',
        'referrer-policy': 'no-referrer',
        'cross-origin-opener-policy': 'same-origin',
        'cross-origin-resource-policy': 'same-origin',
        'x-content-type-options': 'nosniff',
        // helmet's own defaults, each a further restriction
        'origin-agent-cluster': '?1',
        'x-dns-prefetch-control': 'off',
        'x-download-options': 'noopen',
        'x-permitted-cross-domain-policies': 'none',
        'x-xss-protection': '0',
      };
      const json = 'application/json; charset=utf-8';
      const cases: [string, Awaited<ReturnType<typeof call>>, Record<string, string>][] = [
        [
          'page',
          await call(withUi, undefined, '/'),
          { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' },
        ],
        [
          'asset',
          await call(withUi, undefined, '/assets/index-abc123.js'),
          {
            'content-type': 'text/javascript; charset=utf-8',
            'cache-control': 'public, max-age=31536000, immutable',
          },
        ],
        [
          'API read',
          await call(withUi, s, '/api/session'),
          { 'content-type': json, 'cache-control': 'no-store' },
        ],
        [
          'sign-out',
          await call(withUi, s, '/api/session/sign-out', { method: 'POST', body: {} }),
          {
            'content-type': json,
            'cache-control': 'no-store',
            'set-cookie': expect.stringMatching(/Max-Age=0/),
          },
        ],
        [
          '404',
          await call(withUi, undefined, '/assets/nope.js'),
          { 'content-type': json, 'cache-control': 'no-store' },
        ],
        [
          'refusal',
          await call(withUi, s, '/api/session/sign-out', {
            method: 'POST',
            body: {},
            headers: { origin: 'https://evil.example' },
          }),
          { 'content-type': json, 'cache-control': 'no-store' },
        ],
      ];
      for (const [what, r, own] of cases) {
        const {
          date: _date,
          'x-request-id': _id,
          'content-length': _length,
          connection: _connection,
          'content-security-policy': csp,
          ...rest
        } = r.headers;
        expect(cspDirectives(csp), what).toEqual(CONSOLE_CSP);
        expect(rest, what).toEqual({ ...page, ...own });
      }
      await withUi.app.close();
      dir.cleanup();
    });

    it('says the pages are not built rather than serving nothing silently', async () => {
      const r = await call(c, undefined, '/');
      expect(r.status).toBe(503);
      expect(r.body.remedy).toMatch(/npm run build/);
    });
  });
});
