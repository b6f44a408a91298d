import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** One axe-core violation as a test prints it: the rule, its impact and where it was found. */
export interface AxeFinding {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/**
 * The serious and critical accessibility violations axe-core finds on the page as it is now.
 * axe is evaluated through the DevTools protocol (page.evaluate), not added as a <script>:
 * the console's CSP refuses inline scripts, and a test must not loosen the CSP it checks.
 */
export async function axeViolations(page: Page, options: { exclude?: string[] } = {}): Promise<AxeFinding[]> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(AXE_SOURCE);
  const context = JSON.stringify({ include: [['html']], exclude: (options.exclude ?? []).map((s) => [s]) });
  const found = (await page.evaluate(
    `window.axe.run(${context}, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help,
      targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ') + ' :: ' + (n.failureSummary || '').split('\\n').slice(1).join(' ')),
    })))`,
  )) as AxeFinding[];
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
