import { cssColour } from '../../core/theme/colour.js';
import { appearanceOf, COLOUR_TOKENS, defaultTheme, fontFamily, type Theme } from '../../core/theme/theme.js';

/**
 * The look of the last tenant signed in from this browser, so the sign-in page wears it
 * before anyone is signed in. Only the mode, the twelve colours and the font family names are
 * kept: no logo, no asset URL, no tenant or actor name, nothing the theme route guards that a
 * visitor to this browser could not have seen on screen anyway. What is read back passes the
 * theme file's own checks, so a value planted in storage cannot reach the CSS as anything but
 * a colour or a family list.
 */
const KEY = 'svc.console.look';

export function rememberLook(theme: Theme): void {
  const look = {
    appearance: theme.appearance,
    colors: theme.colors,
    sans: theme.fonts.sans.family,
    mono: theme.fonts.mono.family,
  };
  try {
    localStorage.setItem(KEY, JSON.stringify(look));
  } catch {
    // storage full or disabled: the sign-in page keeps the default look
  }
}

export function rememberedLook(): Theme | undefined {
  try {
    const raw = localStorage.getItem(KEY);
    if (raw === null) return undefined;
    const o = JSON.parse(raw) as {
      appearance?: unknown;
      colors?: Record<string, unknown>;
      sans?: unknown;
      mono?: unknown;
    };
    const base = defaultTheme(appearanceOf('appearance', o.appearance));
    const colors = { ...base.colors };
    for (const token of COLOUR_TOKENS) colors[token] = cssColour(token, o.colors?.[token]);
    return {
      ...base,
      colors,
      fonts: {
        sans: { family: fontFamily('sans', o.sans), url: null },
        mono: { family: fontFamily('mono', o.mono), url: null },
      },
    };
  } catch {
    return undefined;
  }
}
