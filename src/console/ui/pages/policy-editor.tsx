import { useEffect, useRef, useState } from 'preact/hooks';
import { post } from '../api.js';
import { Confirm } from './admin-form.js';
import { FieldError, formError, type FormError } from './form-error.js';

interface Diagnostic {
  line: number;
  column: number;
  message: string;
  help?: string;
}

interface Check {
  valid: boolean;
  verbs: string[];
  errors: Diagnostic[];
  warnings: Diagnostic[];
}

interface Verdict {
  outcome: string;
  code?: string;
  determining?: string[];
}

interface TestRun {
  passed: number;
  failed: number;
  suites: {
    name: string;
    policy: string;
    cases: { name: string; at: string; passed: boolean; expected: Verdict; actual: Verdict }[];
  }[];
}

/** How long typing must pause before the text is validated on the server. */
const DEBOUNCE_MS = 400;

const verdict = (v: Verdict) =>
  `${v.outcome}${v.code ? ` ${v.code}` : ''}${v.determining && v.determining.length > 0 ? ` [${v.determining.join(', ')}]` : ''}`;

const EXAMPLE_SUITE = `name: my checks
cases:
  - name: an agent reads
    actor: AGENT
    capability: CAPABILITY
    action: read
    expect: allowed
`;

/** The text validated against the tenant's schema a moment after typing stops; stale answers are dropped. */
function useValidation(text: string): { check?: Check; error?: FormError } {
  const [state, setState] = useState<{ check?: Check; error?: FormError }>({});
  const seq = useRef(0);
  useEffect(() => {
    const mine = ++seq.current;
    if (text.trim() === '') {
      setState({});
      return;
    }
    const timer = setTimeout(() => {
      post<Check>('/api/policies/validate', { text }).then(
        (check) => mine === seq.current && setState({ check }),
        (err) => mine === seq.current && setState({ error: formError(err) }),
      );
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text]);
  return state;
}

/** Select line `n` of the textarea, so a diagnostic leads to its line. */
function selectLine(area: HTMLTextAreaElement | null, n: number) {
  if (!area) return;
  const lines = area.value.split('\n');
  const start = lines.slice(0, n - 1).reduce((sum, l) => sum + l.length + 1, 0);
  area.focus();
  area.setSelectionRange(start, start + (lines[n - 1]?.length ?? 0));
}

/**
 * The policy editor: the text validated as one types, the policy tests run against it (or the
 * policy in force), and for administrators, the text installed as the next version (asked
 * again first) or set as the shadow the daemon compares every decision with.
 */
export function PolicyEditor({
  initial,
  admin,
  onChanged,
}: {
  initial: string;
  admin: boolean;
  onChanged: (message: string) => void;
}) {
  const [text, setText] = useState(initial);
  const [suite, setSuite] = useState(EXAMPLE_SUITE);
  const [message, setMessage] = useState('');
  const [run, setRun] = useState<TestRun | undefined>(undefined);
  const [testError, setTestError] = useState<FormError | undefined>(undefined);
  const [writeError, setWriteError] = useState<FormError | undefined>(undefined);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);
  const { check, error } = useValidation(text);

  const runTests = async (against: 'text' | 'current') => {
    setBusy(true);
    try {
      setRun(await post<TestRun>('/api/policies/test', against === 'text' ? { suite, text } : { suite }));
      setTestError(undefined);
    } catch (err) {
      setRun(undefined);
      setTestError(formError(err));
    } finally {
      setBusy(false);
    }
  };
  const write = async (what: 'install' | 'shadow') => {
    setBusy(true);
    try {
      if (what === 'install') {
        const r = await post<{ version: number; changed: boolean }>('/api/policies', {
          text,
          ...(message.trim() !== '' ? { message: message.trim() } : {}),
        });
        onChanged(
          r.changed
            ? `Installed policy version ${r.version}.`
            : `Unchanged: version ${r.version} already has this text.`,
        );
        setMessage('');
      } else {
        const r = await post<{ candidate_id: string }>('/api/policies/shadow', { text });
        onChanged(`Set shadow policy ${r.candidate_id}: every decision is compared with it from now on.`);
      }
      setWriteError(undefined);
    } catch (err) {
      setWriteError(formError(err));
    } finally {
      setConfirming(false);
      setBusy(false);
    }
  };

  return (
    <div class="card" id="policy-editor">
      <label for="policy-text">Policy text (Cedar)</label>
      <textarea
        id="policy-text"
        ref={area}
        rows={14}
        spellcheck={false}
        class="code"
        value={text}
        aria-invalid={check?.valid === false}
        aria-describedby="policy-check"
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
      />
      <div id="policy-check" aria-live="polite" data-valid={check ? String(check.valid) : ''}>
        {error && <FieldError error={error} id="policy-check-error" />}
        {check?.valid && (
          <p class="notice">Valid against the tenant’s schema (actions: {check.verbs.join(', ')}).</p>
        )}
        {check && check.errors.length + check.warnings.length > 0 && (
          <ul class="diagnostics" id="policy-diagnostics">
            {[
              ...check.errors.map((d) => ['error', d] as const),
              ...check.warnings.map((d) => ['warning', d] as const),
            ].map(([kind, d], i) => (
              <li key={i} class={kind} data-line={d.line} data-column={d.column}>
                <button type="button" class="link" onClick={() => selectLine(area.current, d.line)}>
                  line {d.line}, column {d.column}
                </button>{' '}
                {kind}: {d.message}
                {d.help && <span class="muted"> ({d.help})</span>}
              </li>
            ))}
          </ul>
        )}
      </div>

      <h4>Policy tests</h4>
      <p class="muted">
        A suite as <code>svc policy test</code> reads it (YAML or JSON), run with the tenant’s registrations;
        nothing is stored. At most 500 cases here; larger suites run on the deployment’s machine.
      </p>
      <label for="policy-suite">Test suite</label>
      <textarea
        id="policy-suite"
        rows={8}
        spellcheck={false}
        class="code"
        value={suite}
        aria-invalid={testError?.field === 'suite'}
        onInput={(e) => setSuite((e.target as HTMLTextAreaElement).value)}
      />
      <FieldError error={testError} id="policy-test-error" />
      <div class="row">
        <button
          id="run-tests-text"
          disabled={busy || text.trim() === ''}
          onClick={() => void runTests('text')}
        >
          Run against the text above
        </button>
        <button id="run-tests-current" disabled={busy} onClick={() => void runTests('current')}>
          Run against the policy in force
        </button>
      </div>
      {run && (
        <div id="policy-test-results" data-passed={run.passed} data-failed={run.failed}>
          <p class={run.failed === 0 ? 'notice' : 'error'}>
            {run.passed} passed, {run.failed} failed ({run.suites.map((s) => s.policy).join(', ')}).
          </p>
          <table>
            <thead>
              <tr>
                <th>Case</th>
                <th>Expected</th>
                <th>Got</th>
                <th>Result</th>
              </tr>
            </thead>
            <tbody>
              {run.suites.flatMap((s) =>
                s.cases.map((c) => (
                  <tr key={c.at} data-passed={String(c.passed)}>
                    <td>
                      {c.name} <span class="muted">{c.at}</span>
                    </td>
                    <td>
                      <code>{verdict(c.expected)}</code>
                    </td>
                    <td>
                      <code>{verdict(c.actual)}</code>
                    </td>
                    <td>
                      {c.passed ? <span class="pill ok">pass</span> : <span class="pill bad">fail</span>}
                    </td>
                  </tr>
                )),
              )}
            </tbody>
          </table>
        </div>
      )}

      {admin ? (
        <>
          <h4>Use this text</h4>
          <label for="policy-message">Why (kept in the history)</label>
          <input
            id="policy-message"
            maxLength={500}
            value={message}
            aria-invalid={writeError?.field === 'message'}
            onInput={(e) => setMessage((e.target as HTMLInputElement).value)}
          />
          <FieldError error={writeError} id="policy-write-error" />
          <div class="row">
            <button
              id="set-shadow"
              disabled={busy || check?.valid !== true}
              onClick={() => void write('shadow')}
            >
              Set as shadow
            </button>
            <button
              id="install-policy"
              class="danger"
              disabled={busy || check?.valid !== true}
              onClick={() => setConfirming(true)}
            >
              Install as the next version…
            </button>
          </div>
        </>
      ) : (
        <p class="muted" id="policy-admin-only">
          Administrators install a text or set it as the shadow here; validating and testing are open to every
          reader.
        </p>
      )}
      {confirming && (
        <Confirm
          title="Install this policy now?"
          action="Install it"
          busy={busy}
          onConfirm={() => void write('install')}
          onCancel={() => setConfirming(false)}
        >
          <p>
            The daemon decides with it from its next decision on. The current version stays in the history
            (roll back with <code>svc policy rollback</code>). The same as <code>svc policy set</code>
            {message.trim() !== '' && (
              <>
                , with the message <q>{message.trim()}</q>
              </>
            )}
            .
          </p>
        </Confirm>
      )}
    </div>
  );
}
