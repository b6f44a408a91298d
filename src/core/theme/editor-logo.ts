import { createHash } from 'node:crypto';
import { logoBytes } from './appearance.js';
import { ASSET_PREFIX } from './asset-url.js';
import { CONTENT_TYPES, EXTENSIONS, RASTER_KINDS, sniffMedia } from './media.js';

/**
 * A logo saved through the Settings editor (semantics.md, "Console appearance"): kept with
 * its theme revision in the store and served as `/tenant-assets/logo-<sha256>.<ext>`. The
 * name is derived from the bytes, never chosen by the editor, and cannot collide with the
 * provisioned store's names (those are the bare digest).
 */
export interface EditorLogo {
  name: string;
  bytes: Uint8Array;
}

export const EDITOR_LOGO_NAME = /^logo-[0-9a-f]{64}\.(?:png|jpg|webp)$/;

function nameOf(bytes: Uint8Array): string | undefined {
  const kind = sniffMedia(bytes);
  if (!(RASTER_KINDS as readonly string[]).includes(kind)) return undefined;
  const digest = createHash('sha256').update(bytes).digest('hex');
  return `logo-${digest}.${EXTENSIONS[kind as (typeof RASTER_KINDS)[number]]}`;
}

/** The logo of an editor data URL, checked by its bytes (`field` names the data URL). */
export function editorLogo(field: string, dataUrl: unknown): EditorLogo {
  const bytes = logoBytes(field, dataUrl);
  // logoBytes accepted it, so it is a raster image and has a name.
  return { name: nameOf(bytes) as string, bytes };
}

export const editorLogoUrl = (logo: EditorLogo): string => `${ASSET_PREFIX}${logo.name}`;

/**
 * Whether stored bytes are what their name says: the name is the digest of the bytes and
 * the extension their sniffed type, so a row changed behind the daemon is not served.
 */
export function editorLogoMatches(name: string, bytes: Uint8Array): boolean {
  return EDITOR_LOGO_NAME.test(name) && nameOf(bytes) === name;
}

/** The content type of a stored editor logo, from its bytes. */
export function editorLogoType(bytes: Uint8Array): string | undefined {
  const kind = sniffMedia(bytes);
  return (RASTER_KINDS as readonly string[]).includes(kind)
    ? CONTENT_TYPES[kind as (typeof RASTER_KINDS)[number]]
    : undefined;
}
