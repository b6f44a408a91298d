import { z } from 'zod';
import { SvcError } from '../../core/errors.js';
import {
  contrastWarnings,
  deriveTheme,
  parseAppearanceUpdate,
  settingsOf,
} from '../../core/theme/appearance.js';
import { ASSET_PREFIX } from '../../core/theme/asset-url.js';
import { CONTENT_TYPES, sniffMedia } from '../../core/theme/media.js';
import { defaultTheme, type Theme } from '../../core/theme/theme.js';
import { requireHuman } from '../../daemon/auth.js';
import type { Caller } from '../../daemon/caller.js';
import { ErrorBodySchema } from '../../daemon/openapi.js';
import { defineRoute, type AnyRoute } from '../../daemon/route.js';
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
    contrast_warnings: z.array(z.object({ pair: z.string(), ratio: z.number() })),
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

/** The theme's logo as a data URL for the editor: a managed file is read and encoded. */
function logoDataUrl(deps: ConsoleDeps, tenantId: string, theme: Theme): string | null {
  const url = theme.logo?.url;
  if (url === undefined) return null;
  if (url.startsWith('data:')) return url;
  const file = deps.assets.read(tenantId, url.slice(ASSET_PREFIX.length));
  return file ? `data:${file.contentType};base64,${file.bytes.toString('base64')}` : null;
}

async function currentDocument(deps: ConsoleDeps, caller: Caller) {
  const current = await deps.themes.current(caller.tenantId);
  const theme = current?.theme ?? defaultTheme();
  return {
    revision: current?.revision ?? 0,
    settings: settingsOf(theme, logoDataUrl(deps, caller.tenantId, theme)),
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
        return { revision: current.revision, theme: current.theme };
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
        'save the appearance (administrator; CSRF token): the body names the revision it edits; a stale one is 409 stale_revision and nothing is written; the full token set is derived from the four colours',
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
        const current = await deps.themes.current(caller.tenantId);
        const previous = current?.theme ?? defaultTheme(update.settings.appearance);
        let logo: Theme['logo'] = null;
        if (update.settings.logo) {
          // The provisioned file stays referenced when the editor sends its bytes back unchanged.
          const same =
            previous.logo && logoDataUrl(deps, caller.tenantId, previous) === update.settings.logo.data_url;
          logo = {
            url: same && previous.logo ? previous.logo.url : update.settings.logo.data_url,
            alt: update.settings.logo.alt,
          };
        }
        const theme = deriveTheme(update.settings, previous, logo);
        const saved = await deps.themes.save({
          tenantId: caller.tenantId,
          theme,
          source: 'editor',
          createdBy: caller.actorId,
          at: deps.clock().toISOString(),
          expected: update.revision,
        });
        return {
          revision: saved.revision,
          settings: settingsOf(theme, logoDataUrl(deps, caller.tenantId, theme)),
          contrast_warnings: contrastWarnings(theme.colors),
        };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/tenant-assets/:name',
      summary: "a managed font or logo file of the signed-in operator's tenant; never public",
      tag: 'Console appearance',
      auth: 'token',
      params: z.strictObject({ name: z.string().max(120) }),
      responses: {
        200: { description: 'the file, with its content type from its bytes' },
        404: { description: 'no such managed file', schema: ErrorBodySchema },
      },
      handler: async ({ caller, params, reply }) => {
        const file = deps.assets.read(caller.tenantId, params.name);
        if (!file) throw new SvcError('not_found', 'no such managed asset');
        const kind = sniffMedia(file.bytes);
        void reply
          .header('content-type', CONTENT_TYPES[kind as keyof typeof CONTENT_TYPES])
          .header('cache-control', 'private, max-age=86400, immutable')
          .header('content-disposition', 'inline');
        return reply.send(file.bytes);
      },
    }),
  ];
}
