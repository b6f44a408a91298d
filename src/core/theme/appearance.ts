import { invalidField, SvcError } from '../errors.js';
import { hexColour, parseCssColour, toHex } from './colour.js';
import { contrastWarnings, type ContrastWarning } from './contrast.js';
import { derivePalette, modeOf } from './palette.js';
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
 * The full token set from the four editor colours (`derivePalette`: muted and dim text and
 * the status colours are made readable on the backgrounds they are drawn on).
 */
export function deriveTheme(s: AppearanceSettings, previous: Theme, logo: Theme['logo']): Theme {
  const sansUrl = previous.fonts.sans.family === s.font_sans ? previous.fonts.sans.url : null;
  return {
    version: 1,
    appearance: s.appearance,
    colors: derivePalette(s),
    fonts: { sans: { family: s.font_sans, url: sansUrl }, mono: previous.fonts.mono },
    logo,
  };
}

/**
 * The editor field to change first: the accent for an accent pair; the text when text reads
 * badly on the page background (muted, dim and status colours are derived from it); the
 * surface when only the cards and tables fail.
 */
function fieldToChange(failing: ContrastWarning[]): 'text' | 'surface' | 'accent' {
  if (failing[0]?.pair.startsWith('accent ')) return 'accent';
  return failing.some((w) => w.pair.endsWith(' on bg')) ? 'text' : 'surface';
}

/**
 * Why these settings cannot be saved: a mode their colours contradict (a "dark" console on a
 * light background keeps light colours under dark native controls), or any pair the console
 * draws below WCAG AA. Each names the field to change and every failing pair with its ratio.
 */
export function appearanceRefusal(field: string, s: AppearanceSettings): SvcError | undefined {
  const reads = modeOf(s.bg, s.text);
  if (reads !== s.appearance) {
    const darker = s.appearance === 'dark' ? 'darker' : 'lighter';
    return new SvcError(
      'invalid_request',
      `${field}.appearance: ${s.appearance} mode needs a background ${darker} than its text, but background ${s.bg} with text ${s.text} reads as ${reads}`,
      {
        field: `${field}.appearance`,
        remedy: `choose ${reads}, or pick ${s.appearance} colours (the Appearance page offers them when the mode is switched)`,
      },
    );
  }
  const failing = contrastWarnings(deriveTheme(s, defaultTheme(s.appearance), null).colors);
  if (failing.length === 0) return undefined;
  const change = `${field}.${fieldToChange(failing)}`;
  const list = failing.map((w) => `${w.pair} ${w.ratio}:1 (${w.where})`).join('; ');
  return new SvcError('invalid_request', `${field}: below WCAG AA contrast (4.5:1 for text): ${list}`, {
    field: change,
    code: 'contrast_too_low',
    remedy: `change ${change} until every pair reaches 4.5:1 (the Appearance page measures them as you edit)`,
  });
}
