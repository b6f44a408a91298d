import { COLOUR_TOKENS, defaultTheme, type Theme } from '../../core/theme/theme.js';
import { get } from './api.js';

const loadedFonts = new Set<string>();

/**
 * Apply a theme as CSS custom properties on the root element (through the CSSOM, which
 * the page's CSP allows; no inline style attribute or style element is written).
 */
export function applyTheme(theme: Theme, target: HTMLElement = document.documentElement): void {
  for (const token of COLOUR_TOKENS) target.style.setProperty(`--${token}`, theme.colors[token]);
  target.style.setProperty('--font-sans', theme.fonts.sans.family);
  target.style.setProperty('--font-mono', theme.fonts.mono.family);
  target.dataset.appearance = theme.appearance;
  if (target === document.documentElement) document.documentElement.style.colorScheme = theme.appearance;
  for (const font of [theme.fonts.sans, theme.fonts.mono]) {
    if (font.url === null || loadedFonts.has(font.url)) continue;
    loadedFonts.add(font.url);
    // A managed font file (same origin, font-src 'self'): named after the first family.
    const family =
      font.family
        .split(',')[0]
        ?.trim()
        .replace(/^["']|["']$/g, '') ?? 'tenant';
    const face = new FontFace(family, `url(${font.url})`);
    void face.load().then(
      (f) => document.fonts.add(f),
      () => loadedFonts.delete(font.url as string),
    );
  }
}

/** The tenant's theme, or the console's default when none is stored (404). */
export async function loadTheme(): Promise<Theme> {
  try {
    return (await get<{ theme: Theme }>('/api/theme')).theme;
  } catch {
    return defaultTheme();
  }
}
