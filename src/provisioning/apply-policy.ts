import { resolve } from 'node:path';
import type { Capability } from '../core/capability.js';
import { validatePolicy } from '../policy/validation.js';
import { verbsOf } from '../policy/verbs.js';
import type { Store } from '../store/ports.js';
import type { Step } from './apply-step.js';
import type { DeploymentDocument } from './deployment-document.js';
import { checkStoredPolicyAfter, policyRejected } from './policy.js';
import { operatorAuthorship } from './policy-authorship.js';
import { readTextFile } from './text-file.js';

/**
 * The document's policy, validated against the verbs the tenant will have once the
 * document's capabilities are registered. Without a policy in the document, the stored one
 * must stay valid under those verbs.
 *
 * `first` says whether to write the policy before the capabilities: when it validates under
 * both the current and the coming verbs, writing it first means the daemon never holds the
 * old policy against a verb set that no longer has a verb the old one names.
 */
export async function planPolicy(
  store: Store,
  doc: DeploymentDocument,
  registrations: readonly Capability[],
  at: string,
): Promise<{ steps: Step[]; first: boolean }> {
  const tenantId = doc.content.tenant;
  const entry = doc.content.policy;
  if (entry === undefined) {
    try {
      await checkStoredPolicyAfter(store, tenantId, registrations);
    } catch (err) {
      throw doc.fail(['capabilities'], err);
    }
    return { steps: [], first: false };
  }
  const current = await store.capabilities.list(tenantId);
  const byName = new Map(current.map((c) => [c.name, c]));
  for (const c of registrations) byName.set(c.name, c);
  const before = verbsOf(current);
  const after = verbsOf([...byName.values()]);

  const path = entry.text !== undefined ? ['policy', 'text'] : ['policy', 'file'];
  let text: string;
  let source: string;
  try {
    source = entry.text !== undefined ? 'policy.text' : (entry.file as string);
    text = entry.text ?? readTextFile('file', resolve(doc.dir, entry.file as string));
  } catch (err) {
    throw doc.fail(path, err);
  }
  const result = validatePolicy(text, after);
  if (!result.ok) {
    const remedy = 'fix the policy; nothing in the document was applied';
    throw doc.fail(path, policyRejected(source, after, result.errors, { remedy }));
  }

  const stored = await store.policies.get(tenantId);
  if (stored?.text === text) {
    return { steps: [{ change: { kind: 'policy', id: tenantId, result: 'unchanged' } }], first: false };
  }
  const sameVerbs = before.join() === after.join();
  return {
    steps: [
      {
        change: { kind: 'policy', id: tenantId, result: stored === undefined ? 'created' : 'updated' },
        // The history names the document; the OS user is who ran `svc apply` (or the quickstart).
        write: () => store.policies.set(tenantId, text, at, operatorAuthorship(`applied from ${doc.file}`)),
      },
    ],
    first: !sameVerbs && validatePolicy(text, before).ok,
  };
}
