import { z } from 'zod';
import { SvcError } from '../../core/errors.js';
import {
  appearanceRefusal,
  deriveTheme,
  parseAppearanceUpdate,
  settingsOf,
} from '../../core/theme/appearance.js';
import { contrastWarnings } from '../../core/theme/contrast.js';
import { ASSET_PREFIX } from '../../core/theme/asset-url.js';
import {
  EDITOR_LOGO_NAME,
  editorLogo,
  editorLogoMatches,
  editorLogoType,
  editorLogoUrl,
  type EditorLogo,
} from '../../core/theme/editor-logo.js';
import { defaultTheme, type Theme } from '../../core/theme/theme.js';
import { requireHuman } from '../../http/auth.js';
import type { Caller } from '../../http/caller.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import type { ConsoleDeps } from '../deps.js';

const Colour = z.string().describe('hex colour, #rgb or #rrggbb');
export const AppearanceSettingsSchema = z
  .strictObject({
    appearance: z.enum(['dark', 'light']),
    accent: Colour,
    bg: Colour,
    surface: Colour,
    text: Colour,
    font_sans: z.string().max(200).describe('a family list from the system stack; no url(, @, ; { }'),
    logo: z
      .strictObject({
        data_url: z.string().describe('data:image/png|jpeg|webp;base64,…; SVG is refused; at most 256 KiB'),
        alt: z.string().max(200),
      })
      .nullable(),
  })
  .meta({ id: 'AppearanceSettings' });

export const AppearanceDocument = z
  .object({
    revision: z.number().int().describe('the theme revision these settings were read at; 0: no theme yet'),
    settings: AppearanceSettingsSchema,
    contrast_warnings: z
      .array(
        z.object({
          pair: z.string().describe('`<fg> on <bg>`, colour token names, e.g. `muted on surface`'),
          ratio: z.number().describe('the contrast ratio, rounded down to two decimals'),
          where: z.string().describe('where the console draws that pair'),
        }),
      )
      .describe(
        'every pair the console draws below WCAG AA (4.5:1), worst first; a save with any is refused',
      ),
  })
  .meta({ id: 'AppearanceDocument' });

export const AppearanceUpdateSchema = z
  .strictObject({
    revision: z.number().int().min(0).describe('the revision the edit started from (GET returned it)'),
    settings: AppearanceSettingsSchema,
  })
  .meta({ id: 'AppearanceUpdate' });

const ThemeSchema = z.object({}).passthrough().meta({ id: 'Theme' });

const denied = { description: 'not an administrator', schema: ErrorBodySchema };

interface LogoFile {
  bytes: Buffer;
  contentType: string;
}

/**
 * A revision saved before editor logos had their own column carries the data URL in its
 * document: it is named and served as any editor logo, never handed out as a `data:` URL.
 */
function legacyLogo(theme: Theme): EditorLogo | undefined {
  const url = theme.logo?.url;
  if (url === undefined || !url.startsWith('data:')) return undefined;
  try {
    return editorLogo('logo.url', url);
  } catch {
    return undefined;
  }
}

/** The theme as GET /api/theme shows it: every logo under /tenant-assets/, no `data:` URL. */
function servedTheme(theme: Theme): Theme {
  if (!theme.logo?.url.startsWith('data:')) return theme;
  const legacy = legacyLogo(theme);
  return { ...theme, logo: legacy ? { url: editorLogoUrl(legacy), alt: theme.logo.alt } : null };
}

/**
 * A logo or font under /tenant-assets/: an editor logo from the theme revisions in the store
 * (served only when its bytes still hash to its name), anything else from the provisioned
 * asset store.
 */
async function assetFile(deps: ConsoleDeps, tenantId: string, name: string): Promise<LogoFile | undefined> {
  if (!EDITOR_LOGO_NAME.test(name)) return deps.assets.read(tenantId, name);
  let bytes = await deps.themes.logo(tenantId, name);
  if (bytes === undefined) {
    const current = await deps.themes.current(tenantId);
    const legacy = current && legacyLogo(current.theme);
    if (legacy?.name === name) bytes = legacy.bytes;
  }
  if (bytes === undefined || !editorLogoMatches(name, bytes)) return undefined;
  return { bytes: Buffer.from(bytes), contentType: editorLogoType(bytes) as string };
}

/** The theme's logo as a data URL for the editor, read from wherever it is kept. */
async function logoDataUrl(deps: ConsoleDeps, tenantId: string, theme: Theme): Promise<string | null> {
  const url = theme.logo?.url;
  if (url === undefined) return null;
  if (url.startsWith('data:')) return url;
  const file = await assetFile(deps, tenantId, url.slice(ASSET_PREFIX.length));
  return file ? `data:${file.contentType};base64,${file.bytes.toString('base64')}` : null;
}

async function currentDocument(deps: ConsoleDeps, caller: Caller) {
  const current = await deps.themes.current(caller.tenantId);
  const theme = current?.theme ?? defaultTheme();
  return {
    revision: current?.revision ?? 0,
    settings: settingsOf(theme, await logoDataUrl(deps, caller.tenantId, theme)),
    contrast_warnings: contrastWarnings(theme.colors),
    theme,
  };
}

/** GET /api/theme, the appearance editor's document and its write, and the managed assets. */
export function appearanceRoutes(deps: ConsoleDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/api/theme',
      summary: "the tenant's current theme (provisioned theme shape; URLs under /tenant-assets/)",
      tag: 'Console appearance',
      auth: 'token',
      responses: {
        200: {
          description: 'the theme and its revision',
          schema: z.object({ revision: z.number(), theme: ThemeSchema }),
        },
        404: {
          description: 'no theme stored for the tenant yet (the console uses its defaults)',
          schema: ErrorBodySchema,
        },
      },
      handler: async ({ caller }) => {
        const current = await deps.themes.current(caller.tenantId);
        if (!current) {
          throw new SvcError('not_found', `no theme is stored for tenant ${caller.tenantId}`, {
            remedy: 'install one with `svc theme install FILE --tenant T`, or save the appearance settings',
          });
        }
        return { revision: current.revision, theme: servedTheme(current.theme) };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/settings/appearance',
      summary: 'the appearance settings document derived from the stored theme, with its revision',
      tag: 'Console appearance',
      auth: 'token',
      responses: { 200: { description: 'the editor document', schema: AppearanceDocument } },
      handler: async ({ caller }) => {
        const { theme: _theme, ...doc } = await currentDocument(deps, caller);
        return doc;
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/settings/appearance',
      summary:
        'save the appearance (administrator; CSRF token): the body names the revision it edits; a stale one is 409 stale_revision and nothing is written; the full token set is derived from the four colours; a mode the colours contradict, or any drawn pair below WCAG AA (400 contrast_too_low, every failing pair named), is refused',
      tag: 'Console appearance',
      auth: 'token',
      body: AppearanceUpdateSchema,
      responses: {
        200: { description: 'saved as the next revision', schema: AppearanceDocument },
        403: denied,
        409: {
          description: 'stale_revision: someone else changed the appearance since it was read',
          schema: ErrorBodySchema,
        },
      },
      handler: async ({ caller, body }) => {
        requireHuman(caller, 'administrator');
        const update = parseAppearanceUpdate(body);
        const refusal = appearanceRefusal('settings', update.settings);
        if (refusal) throw refusal;
        const current = await deps.themes.current(caller.tenantId);
        const previous = current?.theme ?? defaultTheme(update.settings.appearance);
        let logo: Theme['logo'] = null;
        let kept: EditorLogo | undefined;
        if (update.settings.logo) {
          const { data_url: dataUrl, alt } = update.settings.logo;
          // A provisioned logo stays referenced when the editor sends its bytes back unchanged;
          // any other logo is kept with this revision under a name derived from its bytes.
          const provisioned =
            previous.logo !== null &&
            !previous.logo.url.startsWith('data:') &&
            !EDITOR_LOGO_NAME.test(previous.logo.url.slice(ASSET_PREFIX.length)) &&
            (await logoDataUrl(deps, caller.tenantId, previous)) === dataUrl;
          if (provisioned && previous.logo) {
            logo = { url: previous.logo.url, alt };
          } else {
            kept = editorLogo('settings.logo.data_url', dataUrl);
            logo = { url: editorLogoUrl(kept), alt };
          }
        }
        const theme = deriveTheme(update.settings, previous, logo);
        const saved = await deps.themes.save({
          tenantId: caller.tenantId,
          theme,
          source: 'editor',
          createdBy: caller.actorId,
          at: deps.clock().toISOString(),
          expected: update.revision,
          ...(kept ? { logo: kept } : {}),
        });
        return {
          revision: saved.revision,
          settings: settingsOf(theme, await logoDataUrl(deps, caller.tenantId, theme)),
          contrast_warnings: contrastWarnings(theme.colors),
        };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/tenant-assets/:name',
      summary:
        "a managed font or logo file of the signed-in operator's tenant (a logo saved through the Settings editor is logo-<sha256>.<ext>, served from its theme revision); never public",
      tag: 'Console appearance',
      auth: 'token',
      params: z.strictObject({ name: z.string().max(120) }),
      responses: {
        200: { description: 'the file, with its content type from its bytes' },
        404: { description: 'no such managed file', schema: ErrorBodySchema },
      },
      handler: async ({ caller, params, reply }) => {
        const file = await assetFile(deps, caller.tenantId, params.name);
        if (!file) throw new SvcError('not_found', 'no such managed asset');
        void reply
          .header('content-type', file.contentType)
          .header('cache-control', 'private, max-age=86400, immutable')
          .header('content-disposition', 'inline');
        return reply.send(file.bytes);
      },
    }),
  ];
}
