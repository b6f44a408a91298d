import { invalidField } from '../errors.js';

/** A colour in sRGB, channels 0..255, alpha 0..1. */
export interface Rgba {
  r: number;
  g: number;
  b: number;
  a: number;
}

const HEX = /^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
const NUMBER = '[+-]?(?:\\d+\\.?\\d*|\\.\\d+)';
// rgb()/rgba()/hsl()/hsla() in comma or space syntax, numbers and percentages only: a grammar
// small enough that nothing but a colour can pass it into a CSS custom property.
const FUNCTIONAL = new RegExp(
  `^(rgba?|hsla?)\\(\\s*(${NUMBER})(%|deg)?\\s*[,\\s]\\s*(${NUMBER})(%)?\\s*[,\\s]\\s*(${NUMBER})(%)?\\s*(?:[,/]\\s*(${NUMBER})(%)?\\s*)?\\)$`,
  'i',
);

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

function fromHex(text: string): Rgba {
  let h = text.slice(1);
  if (h.length <= 4) h = [...h].map((c) => c + c).join('');
  const n = (i: number) => parseInt(h.slice(i, i + 2), 16);
  return { r: n(0), g: n(2), b: n(4), a: h.length === 8 ? n(6) / 255 : 1 };
}

function hslToRgb(h: number, s: number, l: number): [number, number, number] {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => l - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)));
  return [f(0) * 255, f(8) * 255, f(4) * 255];
}

/** The colour a CSS colour string names, or undefined when it is not one this product accepts. */
export function parseCssColour(text: string): Rgba | undefined {
  const t = text.trim();
  if (t.length > 64) return undefined;
  if (HEX.test(t)) return fromHex(t);
  const m = FUNCTIONAL.exec(t);
  if (!m) return undefined;
  const [, fn, x, xu, y, yu, z, zu, al, alu] = m;
  const alpha = al === undefined ? 1 : clamp(Number(al) / (alu ? 100 : 1), 0, 1);
  if ((fn as string).toLowerCase().startsWith('rgb')) {
    const ch = (v: string | undefined, pct: string | undefined) =>
      clamp(pct ? (Number(v) * 255) / 100 : Number(v), 0, 255);
    if (xu === 'deg') return undefined;
    return { r: ch(x, xu), g: ch(y, yu), b: ch(z, zu), a: alpha };
  }
  if (xu === '%' || !yu || !zu) return undefined;
  const hue = ((Number(x) % 360) + 360) % 360;
  const [r, g, b] = hslToRgb(hue, clamp(Number(y) / 100, 0, 1), clamp(Number(z) / 100, 0, 1));
  return { r, g, b, a: alpha };
}

/** A CSS colour from a theme file: hex, rgb()/rgba() or hsl()/hsla(). */
export function cssColour(field: string, value: unknown): string {
  if (typeof value !== 'string' || parseCssColour(value) === undefined) {
    throw invalidField(field, 'a CSS colour: #rgb, #rrggbb, #rrggbbaa, rgb(), rgba(), hsl() or hsla()');
  }
  return value.trim();
}

/** A colour from the appearance editor: hex only (#rgb or #rrggbb). */
export function hexColour(field: string, value: unknown): string {
  if (typeof value !== 'string' || !/^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i.test(value)) {
    throw invalidField(field, 'a hex colour such as #1f6feb');
  }
  return toHex(fromHex(value));
}

export function toHex(c: Rgba): string {
  const h = (v: number) =>
    Math.round(clamp(v, 0, 255))
      .toString(16)
      .padStart(2, '0');
  return `#${h(c.r)}${h(c.g)}${h(c.b)}`;
}

/** `weight` of `b` mixed into `a` (0: a, 1: b), alpha ignored. */
export function mix(a: Rgba, b: Rgba, weight: number): Rgba {
  const w = clamp(weight, 0, 1);
  return { r: a.r + (b.r - a.r) * w, g: a.g + (b.g - a.g) * w, b: a.b + (b.b - a.b) * w, a: 1 };
}

/** WCAG 2.x relative luminance. */
export function luminance(c: Rgba): number {
  const lin = (v: number) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
}

/** WCAG 2.x contrast ratio, 1 to 21. */
export function contrastRatio(a: Rgba, b: Rgba): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** WCAG AA for normal text. */
export const AA_NORMAL_TEXT = 4.5;
