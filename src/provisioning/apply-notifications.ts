import { existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseDuration } from '../core/duration.js';
import { SvcError } from '../core/errors.js';
import type { DataDir } from '../store/data-dir.js';
import type { NotifyDestination } from '../store/notify-ports.js';
import type { Store } from '../store/ports.js';
import type { Step } from './apply-step.js';
import type { DeploymentDocument } from './deployment-document.js';
import { prepareDestination, writeDestination, type PreparedDestination } from './notify.js';
import { readTextFile } from './text-file.js';

const MINUTE = 60_000;
type Entry = NonNullable<DeploymentDocument['content']['notifications']>[number];

/** What a plan of notification destinations hands back: its steps and the secrets to show. */
export interface NotificationPlan {
  steps: Step[];
  /** webhook secrets made by this apply and not written to a `secret_out` file: shown once */
  shown: Map<string, string>;
}

const sameList = (a: readonly unknown[], b: readonly unknown[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** The configuration `svc apply` compares: everything but the secret and the runtime state. */
function sameDestination(a: NotifyDestination, b: NotifyDestination): boolean {
  return (
    a.kind === b.kind &&
    a.url === b.url &&
    sameList(a.events, b.events) &&
    JSON.stringify(a.settings) === JSON.stringify(b.settings) &&
    a.remindAfterSeconds === b.remindAfterSeconds &&
    a.escalateTo === b.escalateTo
  );
}

/** A `secret_out` path: new (a secret is never written over a file), in a directory that exists. */
function checkSecretOut(path: string): void {
  const dir = dirname(path);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new SvcError('invalid_request', `secret-out: the directory ${dir} does not exist`, {
      field: 'secret-out',
    });
  }
  if (existsSync(path)) {
    throw new SvcError(
      'invalid_request',
      `secret-out: ${path} exists; a secret is never written over a file`,
      {
        field: 'secret-out',
        remedy: 'name a new file, or remove that one if the destination it was for is gone',
      },
    );
  }
}

/**
 * Notification destinations of the document's tenant, with the flag names of `svc notify
 * add` (secrets by file, relative to the document). Like channels they are configured, not
 * changed: an id already in the tenant must say what the entry says (its secret aside:
 * `svc notify rotate` changes that). A webhook's new secret is written to `secret_out`
 * (a new file, mode 0600) or shown once in the result. Destinations that escalate to another
 * one of the document are written after it; a loop of escalations is refused.
 */
export async function planNotifications(
  store: Store,
  dir: DataDir | undefined,
  doc: DeploymentDocument,
  at: string,
): Promise<NotificationPlan> {
  const tenantId = doc.content.tenant;
  const entries = doc.content.notifications ?? [];
  if (entries.length > 0 && dir === undefined) {
    throw new SvcError(
      'internal',
      'svc apply: notification destinations need the data dir to seal their secrets',
    );
  }
  const dataDir = dir as DataDir;
  const ids = new Set<string>();
  const prepared: { i: number; entry: Entry; p: PreparedDestination; secretOut: string | undefined }[] = [];
  const steps: Step[] = [];
  const inDocument = new Set(entries.map((e) => e.id));
  for (const [i, e] of entries.entries()) {
    const fromDoc = (p: string) => resolve(doc.dir, p);
    let p: PreparedDestination;
    try {
      if (e.secret_out !== undefined && e.kind !== 'webhook') {
        throw new SvcError('invalid_request', 'secret-out: only a webhook has a secret made by svc', {
          field: 'secret-out',
        });
      }
      p = await prepareDestination(
        store,
        {
          tenantId,
          id: e.id,
          kind: e.kind,
          url: e.url,
          events: e.events,
          options: {
            channel: e.channel,
            toApprovers: e.to_approvers,
            conversation: e.conversation,
            tokenUrl: e.token_url,
            clientId: e.client_id,
            scope: e.scope,
            from: e.from,
            to: e.to,
            smtpUser: e.smtp_user,
            consoleUrl: e.console_url,
            smtpCaFile: e.smtp_ca_file === undefined ? undefined : fromDoc(e.smtp_ca_file),
          },
          secret:
            e.secret_file === undefined
              ? undefined
              : readTextFile('secret-file', fromDoc(e.secret_file), 8192),
          remindAfterSeconds:
            e.remind_after === undefined
              ? undefined
              : Math.round(
                  parseDuration('remind-after', e.remind_after, {
                    minMs: 5_000,
                    maxMs: 30 * 24 * 60 * MINUTE,
                  }) / 1000,
                ),
          escalateTo: e.escalate_to,
          now: new Date(at),
        },
        inDocument,
      );
    } catch (err) {
      throw doc.failIn('notifications', i, err);
    }
    const id = p.destination.id;
    if (ids.has(id)) {
      throw doc.fail(
        ['notifications', i, 'id'],
        new SvcError('invalid_request', `notification destination ${id} is listed twice`, {
          remedy: 'keep one entry',
        }),
      );
    }
    ids.add(id);
    const stored = await store.notify.destination(tenantId, id);
    if (stored !== undefined) {
      if (!sameDestination(stored, p.destination)) {
        throw doc.fail(
          ['notifications', i, 'id'],
          new SvcError(
            'conflict',
            `notification destination ${id} is configured differently; svc apply does not change a destination`,
            {
              remedy: `svc notify remove ${id} --tenant ${tenantId} first, or make the entry match \`svc notify list\``,
            },
          ),
        );
      }
      steps.push({ change: { kind: 'notification', id, result: 'unchanged' } });
      continue;
    }
    const secretOut = e.secret_out === undefined ? undefined : resolve(doc.dir, e.secret_out);
    if (secretOut !== undefined) {
      try {
        checkSecretOut(secretOut);
      } catch (err) {
        throw doc.fail(['notifications', i, 'secret_out'], err);
      }
    }
    prepared.push({ i, entry: e, p, secretOut });
  }
  // Escalation targets of the document first; what is left at the end escalates in a loop.
  const shown = new Map<string, string>();
  const waiting = [...prepared];
  while (waiting.length > 0) {
    const next = waiting.findIndex(
      ({ p }) =>
        p.destination.escalateTo === null ||
        !waiting.some((w) => w.p.destination.id === p.destination.escalateTo),
    );
    if (next === -1) {
      const { i } = waiting[0]!;
      throw doc.fail(
        ['notifications', i, 'escalate_to'],
        new SvcError(
          'invalid_request',
          'escalate-to: the destinations of the document escalate to each other in a loop',
          {
            field: 'escalate-to',
          },
        ),
      );
    }
    const [{ p, secretOut }] = waiting.splice(next, 1) as [(typeof waiting)[number]];
    steps.push({
      change: { kind: 'notification', id: p.destination.id, result: 'created' },
      write: async () => {
        if (p.secret?.shown && secretOut !== undefined) {
          // The file first: a secret nobody can read again would make the destination useless.
          writeFileSync(secretOut, `${p.secret.value}\n`, { mode: 0o600, flag: 'wx' });
          try {
            await writeDestination(dataDir, store, p);
          } catch (err) {
            rmSync(secretOut, { force: true });
            throw err;
          }
          return;
        }
        const added = await writeDestination(dataDir, store, p);
        if (added.secret !== null) shown.set(added.destination_id, added.secret);
      },
    });
  }
  return { steps, shown };
}
