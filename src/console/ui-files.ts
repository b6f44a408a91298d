import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.woff2': 'font/woff2',
  '.png': 'image/png',
  '.webp': 'image/webp',
};

export interface UiFile {
  bytes: Buffer;
  contentType: string;
}

/** The built console pages: index.html and the hashed files under assets/. */
export interface UiBundle {
  index: Buffer;
  assets: Map<string, UiFile>;
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
 * Read the bundle once at start: requests are answered from this table, so no request
 * path ever reaches the file system, and a file type we do not list is never served.
 */
export function loadUiBundle(dir: string): UiBundle | undefined {
  const indexPath = join(dir, 'index.html');
  if (!existsSync(indexPath)) return undefined;
  const assets = new Map<string, UiFile>();
  const assetDir = join(dir, 'assets');
  if (existsSync(assetDir)) {
    for (const name of readdirSync(assetDir)) {
      const contentType = TYPES[extname(name)];
      if (contentType !== undefined)
        assets.set(name, { bytes: readFileSync(join(assetDir, name)), contentType });
    }
  }
  return { index: readFileSync(indexPath), assets };
}
