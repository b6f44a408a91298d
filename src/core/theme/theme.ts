import { invalidField, SvcError } from '../errors.js';
import { assetNameOf, hasControl } from './asset-url.js';
import { cssColour } from './colour.js';

export const COLOUR_TOKENS = [
  'bg',
  'surface',
  'surface2',
  'text',
  'muted',
  'dim',
  'line',
  'accent',
  'accent-soft',
  'ok',
  'warn',
  'bad',
] as const;
export type ColourToken = (typeof COLOUR_TOKENS)[number];
export type Appearance = 'dark' | 'light';

export interface ThemeFont {
  family: string;
  /** null: the family's system stack; else a managed asset under /tenant-assets/ */
  url: string | null;
}

export interface Theme {
  version: 1;
  appearance: Appearance;
  colors: Record<ColourToken, string>;
  fonts: { sans: ThemeFont; mono: ThemeFont };
  /** `/tenant-assets/{name}`, or a raster data URL saved by the appearance editor; null: no logo */
  logo: { url: string; alt: string } | null;
}

export const MAX_FONT_FAMILY = 200;
export const MAX_ALT = 200;

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

function closedObject(field: string, v: unknown, keys: readonly string[]): Record<string, unknown> {
  if (!isObject(v)) throw invalidField(field, 'an object');
  for (const k of Object.keys(v)) {
    if (!keys.includes(k)) {
      const at = field === '' ? k : `${field}.${k}`;
      throw new SvcError('invalid_request', `${at}: unknown field`, { field: at });
    }
  }
  return v;
}

export function appearanceOf(field: string, v: unknown): Appearance {
  if (v !== 'dark' && v !== 'light') throw invalidField(field, '"dark" or "light"');
  return v;
}

/**
 * A font family list as CSS writes it, from the user's system stack: names, quotes, commas
 * and spaces only. Nothing that could open a rule, an at-rule or a url() gets through.
 */
export function fontFamily(field: string, v: unknown): string {
  const expected = `a font family list such as "Inter, system-ui, sans-serif" (letters, digits, spaces, quotes, commas, dashes; at most ${MAX_FONT_FAMILY} characters; no url(, @, ; { or })`;
  if (typeof v !== 'string') throw invalidField(field, expected);
  const t = v.trim();
  if (t.length === 0 || t.length > MAX_FONT_FAMILY) throw invalidField(field, expected);
  if (/url\(|@|[;{}]/i.test(t) || !/^[A-Za-z0-9 ,'"_-]+$/.test(t)) throw invalidField(field, expected);
  return t;
}

export function altText(field: string, v: unknown): string {
  if (typeof v !== 'string' || v.length > MAX_ALT || hasControl(v)) {
    throw invalidField(field, `a text of at most ${MAX_ALT} characters`);
  }
  return v;
}

function themeFont(field: string, v: unknown): ThemeFont {
  const o = closedObject(field, v, ['family', 'url']);
  const family = fontFamily(`${field}.family`, o.family);
  if (o.url === null || o.url === undefined) return { family, url: null };
  assetNameOf(`${field}.url`, o.url);
  return { family, url: o.url as string };
}

/**
 * Validate a provisioned theme file (interface-spec.md, "Provisioned theme file"). Asset
 * URLs keep the operator's names here; installing rewrites them to the managed names.
 */
export function parseThemeFile(doc: unknown): Theme {
  const o = closedObject('', doc, ['version', 'appearance', 'colors', 'fonts', 'logo']);
  if (o.version !== 1) throw invalidField('version', 'the number 1 (the theme file version)');
  const appearance = appearanceOf('appearance', o.appearance);
  const c = closedObject('colors', o.colors, COLOUR_TOKENS);
  const colors = {} as Record<ColourToken, string>;
  for (const token of COLOUR_TOKENS) {
    if (c[token] === undefined)
      throw invalidField(`colors.${token}`, 'a CSS colour (all twelve tokens are required)');
    colors[token] = cssColour(`colors.${token}`, c[token]);
  }
  const f = closedObject('fonts', o.fonts, ['sans', 'mono']);
  const fonts = { sans: themeFont('fonts.sans', f.sans), mono: themeFont('fonts.mono', f.mono) };
  let logo: Theme['logo'] = null;
  if (o.logo !== undefined && o.logo !== null) {
    const l = closedObject('logo', o.logo, ['url', 'alt']);
    assetNameOf('logo.url', l.url);
    logo = { url: l.url as string, alt: altText('logo.alt', l.alt ?? '') };
  }
  return { version: 1, appearance, colors, fonts, logo };
}

/** The theme a tenant has before anyone installs one; the console's own look. */
export function defaultTheme(appearance: Appearance = 'dark'): Theme {
  const dark = appearance === 'dark';
  return {
    version: 1,
    appearance,
    colors: dark
      ? {
          bg: '#0d1117',
          surface: '#161b22',
          surface2: '#1c2330',
          text: '#e6edf3',
          muted: '#9aa4b2',
          dim: '#848d97',
          line: '#30363d',
          accent: '#4493f8',
          'accent-soft': '#17304f',
          ok: '#3fb950',
          warn: '#d29922',
          bad: '#f85149',
        }
      : {
          bg: '#ffffff',
          surface: '#f6f8fa',
          surface2: '#eef1f4',
          text: '#1f2328',
          muted: '#59636e',
          dim: '#656d76',
          line: '#d1d9e0',
          accent: '#0969da',
          'accent-soft': '#ddf4ff',
          ok: '#1a7f37',
          warn: '#9a6700',
          bad: '#cf222e',
        },
    fonts: {
      sans: { family: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif', url: null },
      mono: { family: 'ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace', url: null },
    },
    logo: null,
  };
}
