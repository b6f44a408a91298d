import { SvcError } from '../core/errors.js';
import { svgRefused } from '../core/theme/appearance.js';
import { ASSET_PREFIX, assetNameOf } from '../core/theme/asset-url.js';
import { FONT_KINDS, RASTER_KINDS, sniffMedia } from '../core/theme/media.js';
import { parseThemeFile, type Theme } from '../core/theme/theme.js';
import { AssetStore, readProvidedAsset, type StoredKind } from '../store/asset-store.js';
import type { DataDir } from '../store/data-dir.js';
import type { Store } from '../store/ports.js';
import { readTextFile } from './text-file.js';
import { requireTenant } from './references.js';

export const MAX_LOGO_FILE = 1024 * 1024;
export const MAX_FONT_FILE = 4 * 1024 * 1024;

/** The stable `--json` result of `svc theme install`. */
export interface InstalledTheme {
  tenant_id: string;
  revision: number;
  appearance: string;
  assets: { field: string; source: string; url: string; content_type: string; bytes: number }[];
}

function parseJson(path: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new SvcError('invalid_request', `file: ${path} is not JSON (${(err as Error).message})`, {
      field: 'file',
    });
  }
}

/** Check one referenced file by its bytes and place it in the managed store. */
function placeAsset(
  assets: AssetStore,
  tenantId: string,
  field: string,
  url: string,
  assetsDir: string | undefined,
  want: 'logo' | 'font',
): InstalledTheme['assets'][number] {
  const name = assetNameOf(field, url);
  if (assetsDir === undefined) {
    throw new SvcError('usage', `${field}: names ${url}, but no --assets directory was given`, {
      field,
      remedy: 'pass --assets DIR, the directory that holds the files the theme names',
    });
  }
  const bytes = readProvidedAsset(field, assetsDir, name, want === 'logo' ? MAX_LOGO_FILE : MAX_FONT_FILE);
  const kind = sniffMedia(bytes);
  if (kind === 'svg') throw svgRefused(field);
  const allowed: readonly string[] = want === 'logo' ? RASTER_KINDS : FONT_KINDS;
  if (!allowed.includes(kind)) {
    throw new SvcError(
      'invalid_request',
      `${field}: ${name} is not ${want === 'logo' ? 'a PNG, JPEG or WebP image' : 'a WOFF2, WOFF, TrueType or OpenType font'} (judged by its bytes, not its name)`,
      { field },
    );
  }
  const placed = assets.put(tenantId, bytes, kind as StoredKind);
  return {
    field,
    source: name,
    url: `${ASSET_PREFIX}${placed.name}`,
    content_type: placed.contentType,
    bytes: placed.bytes,
  };
}

/**
 * `svc theme install`: validate the provisioned theme file, copy the files it names into
 * the managed store under content-addressed names, and store the theme, with its URLs
 * rewritten to those names, as the tenant's next revision. Nothing is stored unless every
 * check passed (files already placed are content-addressed and harmless on their own).
 */
export async function installTheme(
  store: Store,
  dir: DataDir,
  o: { tenantId: string; file: string; assetsDir?: string; now: Date },
): Promise<InstalledTheme> {
  const theme: Theme = parseThemeFile(parseJson(o.file, readTextFile('file', o.file)));
  await requireTenant(store, o.tenantId);
  const assets = new AssetStore(dir);
  const placed: InstalledTheme['assets'] = [];
  for (const slot of ['sans', 'mono'] as const) {
    const font = theme.fonts[slot];
    if (font.url === null) continue;
    const p = placeAsset(assets, o.tenantId, `fonts.${slot}.url`, font.url, o.assetsDir, 'font');
    placed.push(p);
    font.url = p.url;
  }
  if (theme.logo) {
    const p = placeAsset(assets, o.tenantId, 'logo.url', theme.logo.url, o.assetsDir, 'logo');
    placed.push(p);
    theme.logo.url = p.url;
  }
  const saved = await store.themes.save({
    tenantId: o.tenantId,
    theme,
    source: 'install',
    createdBy: null,
    at: o.now.toISOString(),
  });
  return { tenant_id: o.tenantId, revision: saved.revision, appearance: theme.appearance, assets: placed };
}
