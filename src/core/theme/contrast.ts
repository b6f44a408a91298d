import { AA_NORMAL_TEXT, contrastRatio, parseCssColour } from './colour.js';
import type { ColourToken } from './theme.js';

/** A foreground drawn on a background somewhere in the console, and where. */
export interface DrawnPair {
  fg: ColourToken;
  bg: ColourToken;
  where: string;
}

/**
 * Every text colour the console's stylesheet draws on every background it draws it on
 * (`src/console/ui/styles.css`; a rule that draws a new pair adds it here). Contrast is
 * symmetric, so "the background's colour on the accent" (primary buttons) is the accent
 * pair read the other way.
 */
export const DRAWN_PAIRS: readonly DrawnPair[] = [
  { fg: 'text', bg: 'bg', where: 'page text' },
  { fg: 'text', bg: 'surface', where: 'cards, tables, header and navigation' },
  { fg: 'text', bg: 'surface2', where: 'buttons and hovered rows' },
  { fg: 'text', bg: 'accent-soft', where: 'the current page in the navigation' },
  { fg: 'muted', bg: 'bg', where: 'explanations under headings' },
  { fg: 'muted', bg: 'surface', where: 'table headers, labels and counts' },
  { fg: 'muted', bg: 'surface2', where: 'secondary text on buttons and hovered rows' },
  { fg: 'muted', bg: 'accent-soft', where: 'a file dragged over the drop zone' },
  { fg: 'dim', bg: 'bg', where: 'secondary notes' },
  { fg: 'dim', bg: 'surface', where: 'roles in the header, notes in tables' },
  { fg: 'accent', bg: 'bg', where: 'links, and primary buttons (the background colour on the accent)' },
  { fg: 'accent', bg: 'surface', where: 'links in tables and cards' },
  { fg: 'ok', bg: 'bg', where: 'saved notices and passing results' },
  { fg: 'ok', bg: 'surface', where: '"allowed" badges in tables' },
  { fg: 'warn', bg: 'bg', where: 'warnings' },
  { fg: 'warn', bg: 'surface', where: '"deferred" and "pending" badges in tables' },
  { fg: 'bad', bg: 'bg', where: 'errors' },
  { fg: 'bad', bg: 'surface', where: '"refused" badges and errors in cards' },
  { fg: 'bad', bg: 'surface2', where: 'Deny buttons' },
];

export interface ContrastWarning {
  /** `<fg token> on <bg token>`, e.g. `muted on surface` */
  pair: string;
  /** the ratio, rounded down to two decimals (a pair just under 4.5 never reads 4.5) */
  ratio: number;
  where: string;
}

/** Every drawn pair below WCAG AA for normal text (4.5:1), worst first. */
export function contrastWarnings(colors: Record<ColourToken, string>): ContrastWarning[] {
  const out: ContrastWarning[] = [];
  for (const { fg, bg, where } of DRAWN_PAIRS) {
    const a = parseCssColour(colors[fg]);
    const b = parseCssColour(colors[bg]);
    // a colour this product does not parse is refused where it is read; nothing to measure
    if (!a || !b) continue;
    const ratio = contrastRatio(a, b);
    if (ratio < AA_NORMAL_TEXT)
      out.push({ pair: `${fg} on ${bg}`, ratio: Math.floor(ratio * 100) / 100, where });
  }
  return out.sort((x, y) => x.ratio - y.ratio);
}
