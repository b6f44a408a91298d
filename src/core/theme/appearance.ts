import { invalidField, SvcError } from '../errors.js';
import { AA_NORMAL_TEXT, contrastRatio, hexColour, mix, parseCssColour, toHex, type Rgba } from './colour.js';
import type { RASTER_KINDS } from './media.js';
import { sniffMedia, SVG_REASON } from './media.js';
import { altText, appearanceOf, defaultTheme, fontFamily, type Appearance, type Theme } from './theme.js';

/** The Settings editor document (interface-spec.md, "Appearance settings document"). */
export interface AppearanceSettings {
  appearance: Appearance;
  accent: string;
  bg: string;
  surface: string;
  text: string;
  font_sans: string;
  /** null: no logo */
  logo: { data_url: string; alt: string } | null;
}

/** The POST body: the editor document and the revision it was read at. */
export interface AppearanceUpdate {
  revision: number;
  settings: AppearanceSettings;
}

export const MAX_LOGO_BYTES = 256 * 1024;
const DATA_URL = /^data:(image\/(?:png|jpeg|webp));base64,([A-Za-z0-9+/]*={0,2})$/;
const DECLARED: Record<string, (typeof RASTER_KINDS)[number]> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/webp': 'webp',
};

export function svgRefused(field: string): SvcError {
  return new SvcError('invalid_request', `${field}: ${SVG_REASON}`, {
    field,
    code: 'svg_refused',
    remedy: 'use a PNG, JPEG or WebP image',
  });
}

function decodeBase64(text: string): Uint8Array {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** The image bytes of a logo data URL, once its bytes prove it is the raster type it says. */
export function logoBytes(field: string, v: unknown): Uint8Array {
  if (typeof v !== 'string') throw invalidField(field, 'a data URL of a PNG, JPEG or WebP image, base64');
  if (/^data:image\/svg/i.test(v)) throw svgRefused(field);
  if (v.length > Math.ceil((MAX_LOGO_BYTES * 4) / 3) + 40) {
    throw invalidField(field, `an image of at most ${MAX_LOGO_BYTES / 1024} KiB`);
  }
  const m = DATA_URL.exec(v);
  if (!m || (m[2] as string).length % 4 !== 0) {
    throw invalidField(field, 'a data URL data:image/png|jpeg|webp;base64,… with valid base64');
  }
  const bytes = decodeBase64(m[2] as string);
  if (bytes.length === 0) throw invalidField(field, 'a non-empty image');
  if (bytes.length > MAX_LOGO_BYTES)
    throw invalidField(field, `an image of at most ${MAX_LOGO_BYTES / 1024} KiB`);
  const kind = sniffMedia(bytes);
  if (kind === 'svg') throw svgRefused(field);
  if (kind !== DECLARED[m[1] as string]) {
    throw invalidField(
      field,
      `image bytes that match ${m[1]} (these are ${kind === 'unknown' ? 'not a PNG, JPEG or WebP image' : kind})`,
    );
  }
  return bytes;
}

function closed(field: string, v: unknown, keys: readonly string[]): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw invalidField(field, 'an object');
  for (const k of Object.keys(v)) {
    if (!keys.includes(k))
      throw new SvcError('invalid_request', `${field}.${k}: unknown field`, { field: `${field}.${k}` });
  }
  return v as Record<string, unknown>;
}

export function parseAppearanceSettings(field: string, v: unknown): AppearanceSettings {
  const o = closed(field, v, ['appearance', 'accent', 'bg', 'surface', 'text', 'font_sans', 'logo']);
  let logo: AppearanceSettings['logo'] = null;
  if (o.logo !== null && o.logo !== undefined) {
    const l = closed(`${field}.logo`, o.logo, ['data_url', 'alt']);
    logoBytes(`${field}.logo.data_url`, l.data_url);
    logo = { data_url: l.data_url as string, alt: altText(`${field}.logo.alt`, l.alt ?? '') };
  }
  return {
    appearance: appearanceOf(`${field}.appearance`, o.appearance),
    accent: hexColour(`${field}.accent`, o.accent),
    bg: hexColour(`${field}.bg`, o.bg),
    surface: hexColour(`${field}.surface`, o.surface),
    text: hexColour(`${field}.text`, o.text),
    font_sans: fontFamily(`${field}.font_sans`, o.font_sans),
    logo,
  };
}

/** The POST /api/settings/appearance envelope: `{"revision": n, "settings": {…}}`. */
export function parseAppearanceUpdate(body: unknown): AppearanceUpdate {
  const o = closed('body', body, ['revision', 'settings']);
  if (typeof o.revision !== 'number' || !Number.isSafeInteger(o.revision) || o.revision < 0) {
    throw invalidField(
      'revision',
      'the revision the settings were read at (an integer >= 0, from GET /api/settings/appearance)',
    );
  }
  return { revision: o.revision, settings: parseAppearanceSettings('settings', o.settings) };
}

const rgb = (hex: string): Rgba => parseCssColour(hex) as Rgba;

/** A colour of a stored theme as the editor's hex (the editor takes hex only). */
function asHex(colour: string): string {
  const c = parseCssColour(colour);
  return c ? toHex(c) : '#000000';
}

/** The editor document a stored theme reads as; `logoDataUrl` is its logo as a data URL. */
export function settingsOf(theme: Theme, logoDataUrl: string | null): AppearanceSettings {
  return {
    appearance: theme.appearance,
    accent: asHex(theme.colors.accent),
    bg: asHex(theme.colors.bg),
    surface: asHex(theme.colors.surface),
    text: asHex(theme.colors.text),
    font_sans: theme.fonts.sans.family,
    logo: theme.logo && logoDataUrl !== null ? { data_url: logoDataUrl, alt: theme.logo.alt } : null,
  };
}

/**
 * The full token set from the four editor colours: the in-between tokens are mixes of
 * background and text, so they follow whatever the administrator picked; status colours
 * come from the mode's defaults (they carry meaning and are not brand colours).
 */
export function deriveTheme(s: AppearanceSettings, previous: Theme, logo: Theme['logo']): Theme {
  const bg = rgb(s.bg);
  const text = rgb(s.text);
  const surface = rgb(s.surface);
  const status = defaultTheme(s.appearance).colors;
  const sansUrl = previous.fonts.sans.family === s.font_sans ? previous.fonts.sans.url : null;
  return {
    version: 1,
    appearance: s.appearance,
    colors: {
      bg: s.bg,
      surface: s.surface,
      surface2: toHex(mix(surface, text, 0.06)),
      text: s.text,
      muted: toHex(mix(text, bg, 0.3)),
      dim: toHex(mix(text, bg, 0.5)),
      line: toHex(mix(surface, text, 0.18)),
      accent: s.accent,
      'accent-soft': toHex(mix(bg, rgb(s.accent), 0.2)),
      ok: status.ok,
      warn: status.warn,
      bad: status.bad,
    },
    fonts: { sans: { family: s.font_sans, url: sansUrl }, mono: previous.fonts.mono },
    logo,
  };
}

export interface ContrastWarning {
  pair: string;
  ratio: number;
}

/** Text pairs below WCAG AA (4.5:1) for normal text. */
export function contrastWarnings(colors: Theme['colors']): ContrastWarning[] {
  const pairs: [string, string, string][] = [
    ['text on bg', colors.text, colors.bg],
    ['text on surface', colors.text, colors.surface],
    ['muted on bg', colors.muted, colors.bg],
    ['accent on bg', colors.accent, colors.bg],
  ];
  const out: ContrastWarning[] = [];
  for (const [pair, fg, bg] of pairs) {
    const a = parseCssColour(fg);
    const b = parseCssColour(bg);
    if (!a || !b) continue;
    const ratio = contrastRatio(a, b);
    if (ratio < AA_NORMAL_TEXT) out.push({ pair, ratio: Math.round(ratio * 100) / 100 });
  }
  return out;
}
