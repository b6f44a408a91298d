import { describe, expect, it } from 'vitest';
import { appearanceRefusal, type AppearanceSettings } from '../../../../src/core/theme/appearance.js';
import { AA_NORMAL_TEXT, contrastRatio, parseCssColour } from '../../../../src/core/theme/colour.js';
import { contrastWarnings, DRAWN_PAIRS } from '../../../../src/core/theme/contrast.js';
import { baseForMode, derivePalette, modeOf } from '../../../../src/core/theme/palette.js';
import { COLOUR_TOKENS, defaultTheme } from '../../../../src/core/theme/theme.js';

const ratio = (a: string, b: string) => contrastRatio(parseCssColour(a)!, parseCssColour(b)!);
const settings = (over: Partial<AppearanceSettings> = {}): AppearanceSettings => ({
  appearance: 'light',
  accent: '#b4235a',
  bg: '#fbfaf7',
  surface: '#ffffff',
  text: '#1d1b16',
  font_sans: 'system-ui, sans-serif',
  logo: null,
  ...over,
});

describe('the pairs the console draws', () => {
  it('covers text, muted and dim text, links, buttons and every status colour on every background', () => {
    const pairs = DRAWN_PAIRS.map((p) => `${p.fg} on ${p.bg}`);
    for (const status of ['ok', 'warn', 'bad']) {
      expect(pairs).toContain(`${status} on bg`);
      expect(pairs).toContain(`${status} on surface`);
    }
    for (const fg of ['text', 'muted', 'dim', 'accent']) {
      expect(pairs).toContain(`${fg} on bg`);
      expect(pairs).toContain(`${fg} on surface`);
    }
    expect(pairs).toContain('text on accent-soft');
    expect(pairs).toContain('bad on surface2');
  });

  it('passes both default themes on every pair', () => {
    expect(contrastWarnings(defaultTheme('dark').colors)).toEqual([]);
    expect(contrastWarnings(defaultTheme('light').colors)).toEqual([]);
  });

  it('names each failing pair with its ratio rounded down and where it is drawn, worst first', () => {
    const dark = defaultTheme('dark').colors;
    // the newcomer's trap: a light background with the dark mode's status colours
    const found = contrastWarnings({ ...dark, bg: '#fbfaf7', surface: '#ffffff', text: '#1d1b16' });
    const ok = found.find((w) => w.pair === 'ok on surface');
    expect(ok).toMatchObject({ where: expect.stringMatching(/allowed/) });
    expect(ok!.ratio).toBe(Math.floor(ratio(dark.ok, '#ffffff') * 100) / 100);
    expect(ok!.ratio).toBeLessThan(3);
    expect(found.map((w) => w.pair)).toEqual(expect.arrayContaining(['warn on bg', 'ok on bg']));
    expect(found.map((w) => w.ratio)).toEqual([...found.map((w) => w.ratio)].sort((a, b) => a - b));
  });
});

describe('palette derivation', () => {
  const cases: [string, Parameters<typeof derivePalette>[0]][] = [
    ['an off-white light theme', { bg: '#fbfaf7', surface: '#ffffff', text: '#1d1b16', accent: '#b4235a' }],
    ['a grey light theme', { bg: '#e8e8e8', surface: '#f2f2f2', text: '#222222', accent: '#0f5f9c' }],
    ['a near-black dark theme', { bg: '#101010', surface: '#1a1a1a', text: '#f0f0f0', accent: '#ff8800' }],
    ['a navy dark theme', { bg: '#0b1d33', surface: '#12294a', text: '#e8eef7', accent: '#7cc4ff' }],
  ];
  it.each(cases)('makes every derived pair readable for %s', (_name, base) => {
    const colours = derivePalette(base);
    expect(Object.keys(colours).sort()).toEqual([...COLOUR_TOKENS].sort());
    expect(contrastWarnings(colours)).toEqual([]);
    // the picked colours are kept as picked
    expect([colours.bg, colours.surface, colours.text, colours.accent]).toEqual([
      base.bg,
      base.surface,
      base.text,
      base.accent,
    ]);
    // muted and dim stay distinct from the text: they are secondary, just readable
    expect(colours.muted).not.toBe(colours.text);
    expect(ratio(colours.dim, colours.bg)).toBeGreaterThanOrEqual(AA_NORMAL_TEXT);
  });

  it('darkens status colours on a light background and lightens them on a dark one', () => {
    const light = derivePalette({ bg: '#e8e8e8', surface: '#f2f2f2', text: '#222222', accent: '#0f5f9c' });
    expect(ratio(light.ok, '#000000')).toBeLessThan(ratio(defaultTheme('light').colors.ok, '#000000'));
    const dark = derivePalette({ bg: '#2a2a2a', surface: '#333333', text: '#ffffff', accent: '#ffcc00' });
    expect(ratio(dark.bad, '#ffffff')).toBeLessThan(ratio(defaultTheme('dark').colors.bad, '#ffffff'));
    expect(ratio(dark.bad, '#333333')).toBeGreaterThanOrEqual(AA_NORMAL_TEXT);
  });

  it('reads the mode from which of background and text is lighter', () => {
    expect(modeOf('#fbfaf7', '#1d1b16')).toBe('light');
    expect(modeOf('#0d1117', '#e6edf3')).toBe('dark');
  });

  it('switches the picked colours with the mode, keeping the accent’s hue readable', () => {
    const light = { bg: '#fbfaf7', surface: '#ffffff', text: '#1d1b16', accent: '#b4235a' };
    const dark = baseForMode('dark', light);
    expect(modeOf(dark.bg, dark.text)).toBe('dark');
    expect(dark.bg).toBe(defaultTheme('dark').colors.bg);
    expect(ratio(dark.accent, dark.bg)).toBeGreaterThanOrEqual(AA_NORMAL_TEXT);
    expect(contrastWarnings(derivePalette(dark))).toEqual([]);
    // already that mode: unchanged
    expect(baseForMode('light', light)).toBe(light);
    const back = baseForMode('light', dark);
    expect(back.bg).toBe(defaultTheme('light').colors.bg);
    expect(contrastWarnings(derivePalette(back))).toEqual([]);
  });
});

describe('what the appearance route refuses', () => {
  it('accepts a readable theme', () => {
    expect(appearanceRefusal('settings', settings())).toBeUndefined();
  });

  it('refuses a mode its colours contradict, naming the field', () => {
    const err = appearanceRefusal('settings', settings({ appearance: 'dark' }));
    expect(err).toMatchObject({ field: 'settings.appearance' });
    expect(err!.reason).toMatch(/dark mode needs a background darker than its text.*reads as light/);
  });

  it('refuses text below 4.5:1 and names every failing pair', () => {
    const err = appearanceRefusal('settings', settings({ text: '#9a9a9a' }));
    expect(err).toMatchObject({ field: 'settings.text', code: 'contrast_too_low' });
    expect(err!.reason).toMatch(/text on bg 2\.\d+:1/);
    expect(err!.reason).toMatch(/text on surface 2\.\d+:1/);
  });

  it('refuses an accent links cannot be read in, naming the accent', () => {
    const err = appearanceRefusal('settings', settings({ accent: '#f5b8cc' }));
    expect(err).toMatchObject({ field: 'settings.accent', code: 'contrast_too_low' });
    expect(err!.reason).toMatch(/accent on bg 1\.\d+:1 \(links/);
  });
});
