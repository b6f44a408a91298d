import { useState } from 'preact/hooks';
import type { VerificationReport } from '../../../evidence/verify/index.js';
import { PASS_DOES_NOT_ESTABLISH, PASS_ESTABLISHES } from '../../../evidence/verify/index.js';
import { parsePastedKey, verifyInBrowser } from '../verify-file.js';

/** Drop an export, paste the trusted key, verify here: nothing is uploaded. */
const count = (n: number, one: string, many: string) =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

export function VerifyPage() {
  const [file, setFile] = useState<File | null>(null);
  const [key, setKey] = useState('');
  const [progress, setProgress] = useState<number | null>(null);
  const [report, setReport] = useState<VerificationReport | null>(null);
  const [error, setError] = useState('');
  const [over, setOver] = useState(false);
  const [requireAnchors, setRequireAnchors] = useState(false);

  const run = async () => {
    setReport(null);
    setError('');
    if (!file) return setError('choose or drop an export file first');
    let keys: Uint8Array[];
    try {
      keys = key
        .split(/[\s,]+/)
        .filter(Boolean)
        .map(parsePastedKey);
      if (keys.length === 0) throw new Error('public key: paste the tenant key you obtained out of band');
    } catch (err) {
      return setError((err as Error).message);
    }
    setProgress(0);
    try {
      setReport(
        await verifyInBrowser(file, keys, requireAnchors, (done) =>
          setProgress(file.size === 0 ? 1 : done / file.size),
        ),
      );
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setProgress(null);
    }
  };

  return (
    <section>
      <h2>Verify an export</h2>
      <p class="muted">
        Checks an <code>svc.export/v1</code> file in this browser with the same verifier as{' '}
        <code>svc verify</code>. The file is read locally and never uploaded. Paste the tenant’s public key
        obtained out of band (<code>svc key show --tenant T</code>): the key embedded in the file cannot
        establish trust.
      </p>
      <div
        class={`dropzone ${over ? 'over' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          setFile(e.dataTransfer?.files[0] ?? null);
          setReport(null);
        }}
      >
        {file ? (
          <span>
            <strong>{file.name}</strong> ({file.size.toLocaleString()} bytes)
          </span>
        ) : (
          <label for="export-file">Drop an export file here, or choose one</label>
        )}
        <input
          id="export-file"
          aria-label={file ? `Export file: ${file.name}` : undefined}
          type="file"
          accept=".jsonl,.json,application/json,text/plain"
          onChange={(e) => {
            setFile((e.target as HTMLInputElement).files?.[0] ?? null);
            setReport(null);
          }}
        />
      </div>
      <label>
        Trusted public keys (one per line)
        <textarea
          id="public-key"
          rows={2}
          value={key}
          onInput={(e) => setKey((e.target as HTMLTextAreaElement).value)}
          placeholder="base64 or hex of the Ed25519 key"
          autocomplete="off"
          spellcheck={false}
        />
      </label>
      <label class="inline check">
        <input
          id="require-anchors"
          type="checkbox"
          checked={requireAnchors}
          onChange={(e) => setRequireAnchors((e.target as HTMLInputElement).checked)}
        />
        Require anchors (fail an export without any, even when it declares pre_anchor)
      </label>
      <button id="verify" class="primary" onClick={() => void run()} disabled={progress !== null}>
        Verify
      </button>
      {progress !== null && (
        <div
          class="progress"
          role="progressbar"
          aria-valuenow={Math.round(progress * 100)}
          aria-valuemin={0}
          aria-valuemax={100}
        >
          <progress max={1} value={progress} /> {Math.round(progress * 100)}%
        </div>
      )}
      {error && <p class="error">{error}</p>}
      {report && (
        <div
          id="verify-result"
          class={`result ${report.result}`}
          data-result={report.result}
          data-codes={[...new Set(report.findings.map((f) => f.code))].sort().join(' ')}
        >
          <h3>{report.summary.replace(/^(pass|fail)/, (m) => m.toUpperCase())}</h3>
          <p>
            {count(report.counts.entries, 'entry', 'entries')},{' '}
            {count(report.counts.anchors, 'anchor', 'anchors')}, {count(report.counts.lines, 'line', 'lines')}
            {report.counts.redactedEntries > 0 && `, ${report.counts.redactedEntries} redacted`}.
          </p>
          {report.findings.length > 0 && (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th>Line</th>
                    <th>Code</th>
                    <th>Finding</th>
                  </tr>
                </thead>
                <tbody>
                  {report.findings.map((f, i) => (
                    <tr key={i}>
                      <td class="num">{f.line ?? '–'}</td>
                      <td>
                        <code>{f.code}</code>
                      </td>
                      <td>{f.message}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {report.findingsOmitted > 0 && <p>{report.findingsOmitted} more findings not listed.</p>}
          {report.result === 'pass' && report.qualifiers.length > 0 && (
            <p class="muted">Qualifiers: {report.qualifiers.join('; ')}</p>
          )}
          {report.notes.map((n) => (
            <p key={n} class="muted">
              {n}
            </p>
          ))}
          {report.result === 'pass' && (
            <>
              <p class="muted">{PASS_ESTABLISHES}</p>
              <p class="muted">A pass does not establish: {PASS_DOES_NOT_ESTABLISH.join('; ')}.</p>
            </>
          )}
        </div>
      )}
    </section>
  );
}
