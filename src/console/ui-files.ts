import { existsSync, readdirSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.woff2': 'font/woff2',
  '.png': 'image/png',
  '.webp': 'image/webp',
};

/**
 * The built console pages: the directory that holds index.html, and the hashed files under
 * its assets/ that may be served, each with its content type.
 */
export interface UiBundle {
  root: string;
  assets: ReadonlyMap<string, string>;
}

/** Where `npm run build` puts the console UI: `<package>/dist/console-ui`. */
export function defaultUiDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return join(dir, 'dist', 'console-ui');
}

/**
 * List the bundle once at start: only a name listed here is handed to @fastify/static, so a
 * request path never chooses what is read, and a file type we do not list is never served.
 */
export function loadUiBundle(dir: string): UiBundle | undefined {
  if (!existsSync(join(dir, 'index.html'))) return undefined;
  const assets = new Map<string, string>();
  const assetDir = join(dir, 'assets');
  if (existsSync(assetDir)) {
    for (const entry of readdirSync(assetDir, { withFileTypes: true })) {
      const contentType = TYPES[extname(entry.name)];
      if (entry.isFile() && contentType !== undefined) assets.set(entry.name, contentType);
    }
  }
  return { root: resolve(dir), assets };
}
