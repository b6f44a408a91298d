import type { ComponentChildren } from 'preact';
import type { PublishedReceipt } from '../../../core/receipt.js';
import { useLayoutEffect, useRef } from 'preact/hooks';
import { Id, usd, When } from './common.js';
import { kindLabel, tone, words } from './record-words.js';

/** A receipt as /api/records publishes it: the published projection of core/receipt.ts. */
export type Receipt = PublishedReceipt;

const link = (hash: string, text: ComponentChildren) => <a href={hash}>{text}</a>;
const recordsOf = (key: string, value: string) =>
  `#/records/${new URLSearchParams({ [key]: value }).toString()}`;

/**
 * The receipt in words: labelled facts, absent ones left out, each id one click from the
 * page that explains it (its task, approval, actor) and the proof one download away.
 */
export function RecordDetail({ r, onClose }: { r: Receipt; onClose: () => void }) {
  const close = useRef<HTMLButtonElement>(null);
  // in the render that shows the detail, so Escape and the focus work from its first frame
  useLayoutEffect(() => {
    close.current?.focus();
    const esc = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    window.addEventListener('keydown', esc);
    return () => window.removeEventListener('keydown', esc);
  }, []);
  const facts: [string, ComponentChildren][] = [
    ['Receipt', <Id value={r.receipt_id} label="receipt" />],
    ['Kind', kindLabel(r.kind)],
    ['Outcome', <span class={`pill ${tone(r.outcome)}`}>{words(r.outcome)}</span>],
    ['Occurred', <When iso={r.occurred_at} />],
    ['Sealed into the journal', <When iso={r.linked_at} />],
    ['Journal position', `#${r.sequence}`],
    [
      r.kind === 'approval' ? 'Decided by' : 'Actor',
      link(`#/people/${encodeURIComponent(r.actor_id)}`, r.actor_id),
    ],
    ['Capability', r.action ? `${r.capability} (${r.action})` : r.capability],
  ];
  const more: [string, ComponentChildren | null][] = [
    ['Intent', r.intent],
    [
      'Task',
      r.task_id && (
        <span>
          {link(`#/spend/${encodeURIComponent(r.task_id)}`, r.task_id)} ·{' '}
          {link(recordsOf('task_id', r.task_id), 'its records')}
        </span>
      ),
    ],
    ['Effect key step', r.effect_key_step],
    ['Refusal code', r.code],
    ['Reason', r.reason],
    ['Remedy', r.remedy],
    ['Amount', r.amount_usd > 0 ? `${usd(r.amount_usd)} (estimate committed at admission)` : null],
    ['Approval', r.approval_id && link(`#/approvals/${encodeURIComponent(r.approval_id)}`, r.approval_id)],
    ['Grant', r.grant_id && <Id value={r.grant_id} label="grant" />],
    ['Intent id', <span>{link(recordsOf('q', r.intent_id), r.intent_id)}</span>],
    ['Effect', r.effect && <code>{JSON.stringify(r.effect)}</code>],
    ['Effect id', r.effect_id],
    ['Reported by the agent', r.observed ? 'yes: observed, never enforced' : null],
    ['Decided by policy version', r.policy_version === null ? null : `version ${r.policy_version}`],
    [
      'Redacted',
      r.redacted ? 'yes: its content was removed; its place in the journal is still proven' : null,
    ],
    ['Record hash', <Id value={r.record_hash} label="record hash" />],
    ['Leaf', <Id value={r.leaf} label="leaf" />],
  ];
  const shown = [
    ...facts,
    ...more.filter((f): f is [string, ComponentChildren] => f[1] !== null && f[1] !== ''),
  ];
  return (
    <div class="modal" role="dialog" aria-modal="true" aria-labelledby="record-title">
      <div class="card wide">
        <h3 id="record-title">
          {kindLabel(r.kind)} #{r.sequence}: {words(r.outcome)}
        </h3>
        <dl class="facts record-facts">
          {shown.map(([label, value]) => (
            <>
              <dt key={`k-${label}`}>{label}</dt>
              <dd key={`v-${label}`}>{value}</dd>
            </>
          ))}
        </dl>
        <p class="muted">
          <a
            href={`/api/records/${encodeURIComponent(r.receipt_id)}/proof`}
            download={`receipt-${r.receipt_id}.json`}
          >
            Download the receipt with its inclusion proof
          </a>{' '}
          and check it offline: <code>svc verify receipt receipt-{r.receipt_id}.json --key …</code>
        </p>
        <button ref={close} onClick={onClose}>
          Close
        </button>
      </div>
    </div>
  );
}
