import { describe, expect, it } from 'vitest';
import {
  deriveTheme,
  logoBytes,
  parseAppearanceUpdate,
  settingsOf,
} from '../../../../src/core/theme/appearance.js';
import { assetNameOf } from '../../../../src/core/theme/asset-url.js';
import { contrastRatio, parseCssColour } from '../../../../src/core/theme/colour.js';
import { contrastWarnings } from '../../../../src/core/theme/contrast.js';
import { sniffMedia } from '../../../../src/core/theme/media.js';
import { defaultTheme, fontFamily, parseThemeFile } from '../../../../src/core/theme/theme.js';
import { dataUrl, pngBytes, SVG_TEXT, WOFF2_BYTES } from '../../../helpers/images.js';
import { codedError } from '../../../helpers/coded-error.js';

const themeFile = () => ({
  version: 1,
  appearance: 'light',
  colors: { ...defaultTheme('light').colors, accent: 'rgb(10, 20, 200)', bad: 'hsl(0, 70%, 45%)' },
  fonts: {
    sans: { family: 'Inter, sans-serif', url: '/tenant-assets/inter.woff2' },
    mono: { family: 'monospace', url: null },
  },
  logo: { url: '/tenant-assets/logo.png', alt: 'Acme' },
});

describe('provisioned theme file', () => {
  it('accepts version 1 with twelve CSS colours, fonts and a logo under /tenant-assets/', () => {
    const t = parseThemeFile(themeFile());
    expect(t.colors.accent).toBe('rgb(10, 20, 200)');
    expect(t.fonts.sans.url).toBe('/tenant-assets/inter.woff2');
    expect(t.logo).toEqual({ url: '/tenant-assets/logo.png', alt: 'Acme' });
  });

  it.each([
    [{ version: 2 }, 'version'],
    [{ appearance: 'sepia' }, 'appearance'],
    [{ colors: { ...defaultTheme().colors, ok: 'url(x)' } }, 'colors.ok'],
    [{ colors: { ...defaultTheme().colors, ok: 'red; background: url(//x)' } }, 'colors.ok'],
    [{ colors: { ...defaultTheme().colors, extra: '#fff' } }, 'colors.extra'],
    [
      {
        fonts: {
          sans: { family: 'x', url: 'https://cdn.example.com/f.woff2' },
          mono: { family: 'm', url: null },
        },
      },
      'fonts.sans.url',
    ],
    [
      { fonts: { sans: { family: 'a;}body{', url: null }, mono: { family: 'm', url: null } } },
      'fonts.sans.family',
    ],
    [{ logo: { url: '//cdn.example.com/logo.png', alt: '' } }, 'logo.url'],
    [{ logo: { url: '/tenant-assets/../keys/x.pem', alt: '' } }, 'logo.url'],
    [{ logo: { url: '/tenant-assets/%2e%2e/svc.db', alt: '' } }, 'logo.url'],
    [{ logo: { url: '/tenant-assets/..%2fsvc.db', alt: '' } }, 'logo.url'],
    [{ logo: { url: '/tenant-assets/..\\svc.db', alt: '' } }, 'logo.url'],
    [{ logo: { url: '/etc/passwd', alt: '' } }, 'logo.url'],
    [{ logo: { url: 'data:image/png;base64,AAAA', alt: '' } }, 'logo.url'],
  ])('refuses %j naming %s', (patch, field) => {
    const err = codedError(() => parseThemeFile({ ...themeFile(), ...patch }));
    expect(err.field).toBe(field);
    expect(err.reason.startsWith(`${field}:`)).toBe(true);
  });

  it('names external and traversal URLs in words an operator can act on', () => {
    expect(codedError(() => assetNameOf('logo.url', 'https://cdn.example.com/a.png')).reason).toMatch(
      /external URLs are refused/,
    );
    expect(codedError(() => assetNameOf('logo.url', '/tenant-assets/%2E%2E/x')).reason).toMatch(/traversal/);
    expect(assetNameOf('logo.url', '/tenant-assets/logo.v2.png')).toBe('logo.v2.png');
  });
});

describe('media sniffing', () => {
  it('decides by bytes: SVG named .png is still SVG, and a PNG is a PNG', () => {
    expect(sniffMedia(pngBytes())).toBe('png');
    expect(sniffMedia(Buffer.from(SVG_TEXT))).toBe('svg');
    expect(sniffMedia(Buffer.from(`\ufeff  \n<svg></svg>`))).toBe('svg');
    expect(sniffMedia(WOFF2_BYTES)).toBe('woff2');
    expect(sniffMedia(Buffer.from('hello'))).toBe('unknown');
  });
});

describe('appearance editor document', () => {
  const settings = {
    appearance: 'dark',
    accent: '#ff8800',
    bg: '#101010',
    surface: '#1a1a1a',
    text: '#f0f0f0',
    font_sans: 'Inter, system-ui, sans-serif',
    logo: { data_url: dataUrl('image/png', pngBytes()), alt: 'Acme' },
  };

  it('parses the envelope {revision, settings}', () => {
    const u = parseAppearanceUpdate({ revision: 3, settings });
    expect(u.revision).toBe(3);
    expect(u.settings.accent).toBe('#ff8800');
  });

  it.each([
    [{ revision: -1, settings }, 'revision'],
    [{ settings }, 'revision'],
    [{ revision: 1, settings: { ...settings, accent: 'red' } }, 'settings.accent'],
    [{ revision: 1, settings: { ...settings, appearance: 'blue' } }, 'settings.appearance'],
    [{ revision: 1, settings: { ...settings, font_sans: 'x, url(https://e/f.woff)' } }, 'settings.font_sans'],
    [{ revision: 1, settings: { ...settings, font_sans: '@import x' } }, 'settings.font_sans'],
    [{ revision: 1, settings: { ...settings, font_sans: 'a'.repeat(201) } }, 'settings.font_sans'],
    [{ revision: 1, settings: { ...settings, extra: 1 } }, 'settings.extra'],
    [{ revision: 1, settings, other: 1 }, 'body.other'],
  ])('refuses %#: names %s', (body, field) => {
    expect(codedError(() => parseAppearanceUpdate(body)).field).toBe(field);
  });

  it('refuses an SVG logo, declared or disguised, with the spec reason', () => {
    for (const url of [dataUrl('image/svg+xml', SVG_TEXT), dataUrl('image/png', SVG_TEXT)]) {
      const err = codedError(() => logoBytes('settings.logo.data_url', url));
      expect(err.code).toBe('svg_refused');
      expect(err.reason).toMatch(/SVG can carry executable markup/);
    }
  });

  it('refuses a logo whose bytes do not match its type, and an oversized one', () => {
    expect(codedError(() => logoBytes('l', dataUrl('image/jpeg', pngBytes()))).reason).toMatch(
      /match image\/jpeg/,
    );
    expect(codedError(() => logoBytes('l', dataUrl('image/png', Buffer.alloc(300 * 1024)))).reason).toMatch(
      /KiB/,
    );
    expect(codedError(() => logoBytes('l', 'data:image/png;base64,@@@@')).field).toBe('l');
  });

  it('derives all twelve tokens from the four editor colours and round-trips', () => {
    const u = parseAppearanceUpdate({ revision: 0, settings });
    const t = deriveTheme(u.settings, defaultTheme(), { url: settings.logo.data_url, alt: 'Acme' });
    expect(Object.keys(t.colors)).toHaveLength(12);
    expect(t.colors.bg).toBe('#101010');
    expect(t.colors.muted).not.toBe(t.colors.text);
    expect(settingsOf(t, settings.logo.data_url)).toEqual(u.settings);
  });

  it('warns below WCAG AA and not above it', () => {
    expect(contrastRatio(parseCssColour('#000')!, parseCssColour('#fff')!)).toBeCloseTo(21, 5);
    expect(contrastWarnings(defaultTheme().colors)).toEqual([]);
    const poor = contrastWarnings({ ...defaultTheme().colors, text: '#333333', bg: '#222222' });
    expect(poor.map((w) => w.pair)).toContain('text on bg');
  });

  it('keeps font family strings to the system stack grammar', () => {
    expect(fontFamily('f', '"Segoe UI", Roboto, sans-serif')).toBe('"Segoe UI", Roboto, sans-serif');
    expect(() => fontFamily('f', 'a{b}')).toThrow(/f: expected a font family/);
  });
});
