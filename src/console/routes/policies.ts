import { z } from 'zod';
import { decodeCursor, encodeCursor, PageQuery, pageOf } from '../../api/page.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { policyDiff, policyVersion, versionNumber, versionView } from '../../provisioning/policy-history.js';
import type { ConsoleDeps } from '../deps.js';
import { requireReader } from './registry.js';

const Version = z
  .object({
    version: z.number(),
    sha256: z.string().describe("SHA-256 of the text's UTF-8 bytes, hex"),
    set_by: z
      .string()
      .describe(
        'the OS user of the svc command that stored it, or "migration" for the version found when the history began',
      ),
    set_at: z.string(),
    message: z.string().nullable(),
    current: z.boolean().describe('this version is the policy the daemon decides with'),
  })
  .meta({ id: 'ConsolePolicyVersion' });

const VersionText = Version.extend({ text: z.string() }).meta({ id: 'ConsolePolicyVersionText' });
const VersionParam = z.strictObject({ version: z.string().max(20).describe('a version number from 1') });
const DiffQuery = z.strictObject({
  from: z.string().max(20).describe('the version the - lines come from'),
  to: z.string().max(20).describe('the version the + lines come from'),
});
const SCOPE = 'console-policy-history';

const readers = {
  403: { description: 'not an operator, administrator or auditor', schema: ErrorBodySchema },
};
const missing = { 404: { description: 'no such version of the tenant’s policy', schema: ErrorBodySchema } };
const bad = { 400: { description: 'a version or cursor that is not one', schema: ErrorBodySchema } };

/** The history of the tenant's policy, read-only: the versions, one version's text, a diff of two. */
export function policyRoutes(deps: ConsoleDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/api/policies/history',
      summary:
        "the stored versions of the tenant's policy, newest first, paged (operator, administrator or auditor)",
      tag: 'Console policies',
      auth: 'token',
      query: PageQuery,
      responses: { 200: { description: 'a page of versions', schema: pageOf(Version) }, ...bad, ...readers },
      handler: async ({ caller, query }) => {
        requireReader(caller);
        const before =
          query.cursor === undefined ? undefined : decodeCursor(query.cursor, z.number().int(), SCOPE);
        const [current, rows] = await Promise.all([
          deps.store.policies.get(caller.tenantId),
          deps.store.policies.history(caller.tenantId, {
            limit: query.limit + 1,
            ...(before !== undefined ? { before } : {}),
          }),
        ]);
        const items = rows.slice(0, query.limit);
        const last = items[items.length - 1];
        return {
          items: items.map((v) => versionView(v, current?.version)),
          next_cursor: rows.length > query.limit && last ? encodeCursor(last.version, SCOPE) : null,
        };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/policies/versions/:version',
      summary: "one stored version of the tenant's policy with its text (operator, administrator or auditor)",
      tag: 'Console policies',
      auth: 'token',
      params: VersionParam,
      responses: { 200: { description: 'the version', schema: VersionText }, ...bad, ...readers, ...missing },
      handler: async ({ caller, params }) => {
        requireReader(caller);
        const v = await policyVersion(deps.store, caller.tenantId, versionNumber('version', params.version));
        return { ...versionView(v, v.current ? v.version : undefined), text: v.text };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/policies/diff',
      summary:
        "a unified diff between two stored versions of the tenant's policy (operator, administrator or auditor)",
      tag: 'Console policies',
      auth: 'token',
      query: DiffQuery,
      responses: {
        200: {
          description: 'the two versions and the diff of their texts (empty when they are equal)',
          schema: z.object({ from: Version, to: Version, diff: z.string() }),
        },
        ...bad,
        ...readers,
        ...missing,
      },
      handler: async ({ caller, query }) => {
        requireReader(caller);
        const d = await policyDiff(
          deps.store,
          caller.tenantId,
          versionNumber('from', query.from),
          versionNumber('to', query.to),
        );
        return { from: d.from, to: d.to, diff: d.diff };
      },
    }),
  ];
}
