/** What a file is, decided by its bytes, never by its name. */
export type MediaKind = 'png' | 'jpeg' | 'webp' | 'woff2' | 'woff' | 'ttf' | 'otf' | 'svg' | 'unknown';

export const CONTENT_TYPES: Record<Exclude<MediaKind, 'svg' | 'unknown'>, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  woff2: 'font/woff2',
  woff: 'font/woff',
  ttf: 'font/ttf',
  otf: 'font/otf',
};

export const EXTENSIONS: Record<keyof typeof CONTENT_TYPES, string> = {
  png: 'png',
  jpeg: 'jpg',
  webp: 'webp',
  woff2: 'woff2',
  woff: 'woff',
  ttf: 'ttf',
  otf: 'otf',
};

export const RASTER_KINDS = ['png', 'jpeg', 'webp'] as const;
export const FONT_KINDS = ['woff2', 'woff', 'ttf', 'otf'] as const;

const starts = (b: Uint8Array, sig: readonly number[], at = 0) => sig.every((v, i) => b[at + i] === v);
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

/** Markup anywhere near the start: SVG, XML or HTML, whatever the file is called. */
function looksLikeMarkup(b: Uint8Array): boolean {
  const head = new TextDecoder('utf-8', { fatal: false }).decode(b.subarray(0, 1024)).toLowerCase();
  const trimmed = head.replace(/^\ufeff/, '').trimStart();
  return trimmed.startsWith('<') || head.includes('<svg') || head.includes('<?xml');
}

export function sniffMedia(b: Uint8Array): MediaKind {
  if (starts(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (starts(b, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (starts(b, ascii('RIFF')) && starts(b, ascii('WEBP'), 8)) return 'webp';
  if (starts(b, ascii('wOF2'))) return 'woff2';
  if (starts(b, ascii('wOFF'))) return 'woff';
  if (starts(b, [0x00, 0x01, 0x00, 0x00]) || starts(b, ascii('true'))) return 'ttf';
  if (starts(b, ascii('OTTO'))) return 'otf';
  if (looksLikeMarkup(b)) return 'svg';
  return 'unknown';
}

/** The Errors table's reason, word for word. */
export const SVG_REASON = 'SVG is refused because SVG can carry executable markup';
