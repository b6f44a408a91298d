import { AA_NORMAL_TEXT, contrastRatio, luminance, mix, parseCssColour, toHex, type Rgba } from './colour.js';
import { defaultTheme, type Appearance, type ColourToken } from './theme.js';

/** The four colours an administrator picks; everything else is derived from them. */
export interface BaseColours {
  bg: string;
  surface: string;
  text: string;
  accent: string;
}

const rgb = (hex: string): Rgba => parseCssColour(hex) as Rgba;
const BLACK: Rgba = { r: 0, g: 0, b: 0, a: 1 };
const WHITE: Rgba = { r: 255, g: 255, b: 255, a: 1 };

/** The mode a background and text colour read as: dark when the text is the lighter one. */
export function modeOf(bg: string, text: string): Appearance {
  return luminance(rgb(text)) > luminance(rgb(bg)) ? 'dark' : 'light';
}

const worst = (c: Rgba, backgrounds: Rgba[]) => Math.min(...backgrounds.map((b) => contrastRatio(c, b)));

/**
 * `start` moved towards `towards` in small steps until it reaches AA on every background:
 * the least change that makes it readable, so a derived colour keeps as much of its
 * character as it can. When even `towards` falls short it is returned (the pair is then
 * reported, never hidden).
 */
export function readableOn(start: Rgba, towards: Rgba, backgrounds: Rgba[]): Rgba {
  for (let step = 0; step <= 50; step++) {
    const c = mix(start, towards, step / 50);
    // measured on the hex it will be written as, so rounding cannot take it back under
    const written = rgb(toHex(c));
    if (worst(written, backgrounds) >= AA_NORMAL_TEXT) return written;
  }
  return towards;
}

/**
 * The full token set for a mode from the four picked colours: surfaces and lines are mixes
 * of surface and text; muted and dim text start as mixes of text and background and are
 * pulled towards the text until they are readable on every background they are drawn on;
 * status colours start as the mode's own (they carry meaning, not brand) and are darkened
 * on a light background, lightened on a dark one, until they are readable there too.
 */
export function derivePalette(base: BaseColours): Record<ColourToken, string> {
  const bg = rgb(base.bg);
  const surface = rgb(base.surface);
  const text = rgb(base.text);
  const accent = rgb(base.accent);
  const mode = modeOf(base.bg, base.text);
  const surface2 = mix(surface, text, 0.06);
  // the current page's tint: as much accent as keeps the text on it readable
  let accentSoft = mix(bg, accent, 0.2);
  for (let w = 0.2; w > 0 && contrastRatio(rgb(toHex(accentSoft)), text) < AA_NORMAL_TEXT; w -= 0.02) {
    accentSoft = mix(bg, accent, Math.max(0, w - 0.02));
  }
  const status = defaultTheme(mode).colors;
  const away = mode === 'dark' ? WHITE : BLACK;
  const panels = [bg, surface, surface2];
  const statusColour = (c: string) => toHex(readableOn(rgb(c), away, panels));
  return {
    bg: toHex(bg),
    surface: toHex(surface),
    surface2: toHex(surface2),
    text: toHex(text),
    muted: toHex(readableOn(mix(text, bg, 0.3), text, [...panels, accentSoft])),
    dim: toHex(readableOn(mix(text, bg, 0.45), text, [bg, surface])),
    line: toHex(mix(surface, text, 0.2)),
    accent: toHex(accent),
    'accent-soft': toHex(accentSoft),
    ok: statusColour(status.ok),
    warn: statusColour(status.warn),
    bad: statusColour(status.bad),
  };
}

/**
 * The picked colours for a mode the editor switches to: unchanged when they already read as
 * that mode, else the mode's own background, surface and text with the administrator's
 * accent made readable on them (same hue, lighter on dark, darker on light). Switching the
 * mode therefore changes the whole palette, never just the status colours.
 */
export function baseForMode(mode: Appearance, current: BaseColours): BaseColours {
  if (modeOf(current.bg, current.text) === mode) return current;
  const d = defaultTheme(mode).colors;
  const accent = readableOn(rgb(current.accent), mode === 'dark' ? WHITE : BLACK, [
    rgb(d.bg),
    rgb(d.surface),
  ]);
  return { bg: d.bg, surface: d.surface, text: d.text, accent: toHex(accent) };
}
