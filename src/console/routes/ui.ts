import type { FastifyInstance } from 'fastify';
import { SvcError } from '../../core/errors.js';
import type { UiBundle } from '../ui-files.js';

/**
 * The pages: `/` is the single page (hash routes inside it), `/assets/{file}` the hashed
 * bundle, cached for a year because a changed file gets a new name. Public: they hold no
 * data; every answer with data needs a session.
 */
export function mountUi(app: FastifyInstance, bundle: UiBundle | undefined): void {
  app.get('/', async (_request, reply) => {
    if (!bundle) {
      throw new SvcError('unavailable', 'the console pages are not built', { remedy: 'run `npm run build`' });
    }
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(bundle.index);
  });
  app.get<{ Params: { file: string } }>('/assets/:file', async (request, reply) => {
    const file = bundle?.assets.get(request.params.file);
    if (!file) throw new SvcError('not_found', 'no such console file');
    return reply
      .type(file.contentType)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .send(file.bytes);
  });
}
