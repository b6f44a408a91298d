import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { SvcError } from '../../core/errors.js';
import type { UiBundle } from '../ui-files.js';

/**
 * The pages: `/` is the single page (hash routes inside it), `/assets/{file}` the hashed
 * bundle, cached for a year because a changed file gets a new name. Public: they hold no
 * data; every answer with data needs a session. The bytes go out through @fastify/static's
 * `sendFile`, only for a name the bundle lists; its own routes stay off (no wildcard, no
 * index, no listing), and the types and cache policy are ours, so every answer says
 * exactly what it is.
 */
export function mountUi(app: FastifyInstance, bundle: UiBundle | undefined): void {
  if (bundle) {
    void app.register(fastifyStatic, {
      root: bundle.root,
      serve: false,
      index: false,
      dotfiles: 'deny',
      contentType: false,
      cacheControl: false,
      etag: false,
      lastModified: false,
      acceptRanges: false,
    });
  }
  app.get('/', async (_request, reply) => {
    if (!bundle) {
      throw new SvcError('unavailable', 'the console pages are not built', { remedy: 'run `npm run build`' });
    }
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').sendFile('index.html');
  });
  app.get<{ Params: { file: string } }>('/assets/:file', async (request, reply) => {
    const contentType = bundle?.assets.get(request.params.file);
    if (!bundle || contentType === undefined) throw new SvcError('not_found', 'no such console file');
    return reply
      .type(contentType)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .sendFile(request.params.file, join(bundle.root, 'assets'));
  });
}
