import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations } from '../helpers/axe.js';
import { CHROMIUM } from '../helpers/browser.js';

/** The helper every console browser test relies on finds what it is there to find. */
describe('axeViolations', () => {
  it('reports serious and critical violations (low contrast, an unlabelled field) and nothing on a clean page', async () => {
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage();
      const doc = (body: string) =>
        `<!doctype html><html lang="en"><head><title>t</title></head><body><main>${body}</main></body></html>`;
      await page.setContent(doc('<p style="color:#777;background:#888">low</p><input id="a">'));
      const found = await axeViolations(page);
      expect(found.map((v) => v.id).sort()).toEqual(['color-contrast', 'label']);
      expect(found.find((v) => v.id === 'color-contrast')?.targets[0]).toMatch(/1\.26/);
      await page.setContent(doc('<h1>ok</h1><label>Name <input id="a"></label>'));
      expect(await axeViolations(page)).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
