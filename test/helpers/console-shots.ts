import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { axeViolations } from './axe.js';
import { ARTIFACTS } from './browser.js';
import { ROOT } from './cli.js';
import { UPDATE_SNAPSHOTS } from './snapshot-file.js';

export const SHOTS = join(ROOT, 'test', 'snapshots', 'console');

/** The sizes every console page is looked at and committed in: a desktop and a narrow window. */
export const WIDE = { width: 1400, height: 900 } as const;
export const NARROW = { width: 800, height: 900 } as const;
export const PHONE = { width: 390, height: 844 } as const;

/** Width and height from a PNG's header. */
export function pngSize(file: string): { width: number; height: number } {
  const b = readFileSync(file);
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

/**
 * How far the page scrolls sideways: 0 when everything fits the window (wide tables scroll
 * inside their own box, never the page).
 */
export const sideways = (page: Page) =>
  page.evaluate(
    'document.documentElement.scrollWidth - document.documentElement.clientWidth',
  ) as Promise<number>;

/**
 * A screenshot of the window at `size`, written to test/artifacts/console on every run and
 * to the committed test/snapshots/console/<name>.png only with SVC_UPDATE_SNAPSHOTS=1; a
 * normal run checks the committed one is there at that size (a snapshot never writes itself).
 */
export async function snapshot(page: Page, name: string, size: { width: number; height: number }) {
  await page.setViewportSize(size);
  // let the layout settle at the new size before it is judged or captured
  await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
  const artifact = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: artifact });
  const committed = join(SHOTS, `${name}.png`);
  if (UPDATE_SNAPSHOTS) copyFileSync(artifact, committed);
  if (!existsSync(committed)) {
    throw new Error(
      `${committed} is missing: take it on purpose with SVC_UPDATE_SNAPSHOTS=1, look at it and commit it`,
    );
  }
  const got = pngSize(committed);
  if (got.width !== size.width || got.height !== size.height) {
    throw new Error(`${committed} is ${got.width}x${got.height}, expected ${size.width}x${size.height}`);
  }
}

/** The page as it is now: no serious or critical axe finding, and nothing scrolls sideways. */
export async function expectAccessible(page: Page): Promise<void> {
  expect(await axeViolations(page)).toEqual([]);
  expect(await sideways(page)).toBe(0);
}

/** Committed screenshots at 1400 and 800 px wide, each checked like `expectAccessible`; back to 1400. */
export async function pageShots(page: Page, name: string): Promise<void> {
  for (const size of [WIDE, NARROW]) {
    await snapshot(page, `${name}-${size.width}`, size);
    await expectAccessible(page);
  }
  await page.setViewportSize(WIDE);
}
