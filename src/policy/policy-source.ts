/**
 * The policies of a policy-set text, one entry per policy, with what the engine's answer
 * does not carry: effect, annotations and where each policy starts.
 *
 * The engine names the policies of a text `policy0`, `policy1`, ... in source order (an
 * `@id` annotation does not change that). `policySetTextToParts` returns each policy's own
 * source text, ordered by that id as a string (`policy10` before `policy2`), so the ids are
 * re-derived the same way rather than assumed to follow the array index.
 */
import { policySetTextToParts, policyToJson } from './cedar-engine.js';

export interface PolicyEntry {
  /** The engine's id: `policy<N>`, N counted from 0 in source order. */
  cedarId: string;
  /** What receipts name: the policy's `@id("…")` annotation, else `cedarId`. */
  label: string;
  /** N of `policy<N>`: the policy's place in the text. */
  order: number;
  effect: 'permit' | 'forbid';
  reason: string | undefined;
  remedy: string | undefined;
  /** JavaScript string index of the policy's first character (its first annotation). */
  index: number;
}

export interface PolicySource {
  policies: PolicyEntry[];
  /** String indexes of templates, which a static policy set may not hold. */
  templateIndexes: number[];
}

/** `undefined` when the text does not parse; validation reports why. */
export function readPolicySource(text: string): PolicySource | undefined {
  const parts = policySetTextToParts(text);
  if (parts.type !== 'success') return undefined;
  const ids = parts.policies.map((_, n) => `policy${n}`).sort();
  const bySource = parts.policies
    .map((policyText, k) => ({ cedarId: ids[k]!, policyText }))
    .sort((a, b) => idNumber(a.cedarId) - idNumber(b.cedarId));
  const policies: PolicyEntry[] = [];
  let cursor = 0;
  for (const { cedarId, policyText } of bySource) {
    const json = policyToJson(policyText);
    if (json.type !== 'success') return undefined;
    const found = text.indexOf(policyText, cursor);
    const index = found === -1 ? cursor : found;
    cursor = found === -1 ? cursor : found + policyText.length;
    const annotations = json.json.annotations ?? {};
    policies.push({
      cedarId,
      order: idNumber(cedarId),
      label: nonEmpty(annotations['id']) ?? cedarId,
      effect: json.json.effect,
      reason: nonEmpty(annotations['reason']),
      remedy: nonEmpty(annotations['remedy']),
      index,
    });
  }
  const templateIndexes = parts.policy_templates.map((t) => text.indexOf(t)).filter((i) => i >= 0);
  return { policies, templateIndexes };
}

function idNumber(cedarId: string): number {
  return Number(cedarId.slice('policy'.length));
}

// A bare `@remedy` has a null value in the engine's JSON; it names nothing.
function nonEmpty(value: string | null | undefined): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}
