import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import {
  deriveTheme,
  parseAppearanceSettings,
  type AppearanceSettings,
} from '../../../core/theme/appearance.js';
import { contrastWarnings } from '../../../core/theme/contrast.js';
import { baseForMode } from '../../../core/theme/palette.js';
import { defaultTheme, type Theme } from '../../../core/theme/theme.js';
import { ApiFailure, describe, get, post, type Session } from '../api.js';
import { applyTheme } from '../theme.js';
import { Loading } from './common.js';

interface Doc {
  revision: number;
  settings: AppearanceSettings;
}

const COLOURS = [
  ['bg', 'Background'],
  ['surface', 'Surface'],
  ['text', 'Text'],
  ['accent', 'Accent'],
] as const;

function preview(s: AppearanceSettings): Theme {
  return deriveTheme(
    s,
    defaultTheme(s.appearance),
    s.logo ? { url: s.logo.data_url, alt: s.logo.alt } : null,
  );
}

/** The appearance editor: live preview, WCAG AA warnings, and a stale revision met plainly. */
export function AppearancePage({ session, onSaved }: { session: Session; onSaved: (t: Theme) => void }) {
  const [doc, setDoc] = useState<Doc | undefined>(undefined);
  const [draft, setDraft] = useState<AppearanceSettings | undefined>(undefined);
  const [error, setError] = useState('');
  const [status, setStatus] = useState('');
  const [stale, setStale] = useState(false);
  const [servedLogo, setServedLogo] = useState('');
  const [switched, setSwitched] = useState('');
  const previewRef = useRef<HTMLElement>(null);
  const admin = session.roles.includes('administrator');

  const load = async () => {
    try {
      const d = await get<Doc>('/api/settings/appearance');
      setDoc(d);
      setDraft(d.settings);
      setStale(false);
      setError('');
    } catch (err) {
      setError(describe(err));
    }
  };
  useEffect(() => void load(), []);

  let problem = '';
  let theme: Theme | undefined;
  if (draft) {
    try {
      theme = preview(parseAppearanceSettings('settings', draft));
    } catch (err) {
      problem = (err as Error).message;
    }
  }
  // in the commit that shows the new values, so the preview never lags the form by a frame
  useLayoutEffect(() => {
    if (theme && previewRef.current) applyTheme(theme, previewRef.current);
  });

  if (!doc || !draft) return <Loading error={error} />;
  const warnings = theme ? contrastWarnings(theme.colors) : [];
  const set = (patch: Partial<AppearanceSettings>) => {
    setDraft({ ...draft, ...patch });
    setStatus('');
    setSwitched('');
  };
  // A mode is a palette, not a flag: colours that read as the other mode are replaced by this
  // mode's own, with the accent's hue kept and made readable on them.
  const switchMode = (mode: 'dark' | 'light') => {
    const base = baseForMode(mode, draft);
    setDraft({ ...draft, ...base, appearance: mode });
    setStatus('');
    setSwitched(
      base === draft
        ? ''
        : `Switched to the ${mode} palette: background ${base.bg}, surface ${base.surface}, text ${base.text}; the accent is now ${base.accent}, readable on them.`,
    );
  };

  const pickLogo = (file: File | undefined) => {
    if (!file) return;
    const reader = new FileReader();
    reader.onload = () => set({ logo: { data_url: String(reader.result), alt: draft.logo?.alt ?? '' } });
    reader.readAsDataURL(file);
  };

  const save = async () => {
    setStatus('');
    setError('');
    try {
      const saved = await post<Doc>('/api/settings/appearance', { revision: doc.revision, settings: draft });
      setDoc(saved);
      setDraft(saved.settings);
      setStatus(`Saved as revision ${saved.revision}.`);
      const current = await get<{ theme: Theme }>('/api/theme');
      // The editor sends a data URL; the saved theme names the logo by its bytes' digest.
      setServedLogo(current.theme.logo?.url ?? '');
      onSaved(current.theme);
    } catch (err) {
      if (err instanceof ApiFailure && err.error.status === 409) setStale(true);
      else setError(describe(err));
    }
  };

  return (
    <section>
      <h2>Appearance</h2>
      <p class="muted">
        Colours, font and logo of this tenant’s console, for every operator. Revision {doc.revision}
        {doc.revision === 0 && ' (no theme stored yet: the defaults)'}. Fonts come from the system stack; logo
        files are PNG, JPEG or WebP (SVG is refused: it can carry executable markup).
      </p>
      {stale && (
        <div class="error stale" role="alert">
          <strong>Someone else changed this appearance</strong> since you opened it, so nothing was saved.
          Reload to see their version, then make your change again.
          <button id="reload-appearance" onClick={() => void load()}>
            Reload
          </button>
        </div>
      )}
      <div class="editor">
        <form
          class="card"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <label>
            Mode
            <select
              id="appearance-mode"
              value={draft.appearance}
              onChange={(e) => switchMode((e.target as HTMLSelectElement).value as 'dark' | 'light')}
            >
              <option value="dark">dark</option>
              <option value="light">light</option>
            </select>
          </label>
          {switched && (
            <p class="notice" role="status" id="mode-switched">
              {switched}
            </p>
          )}
          {COLOURS.map(([key, label]) => (
            <div class="field" key={key}>
              <label for={`colour-${key}`}>{label}</label>
              <span class="colour">
                <input
                  type="color"
                  aria-label={`${label}: colour picker`}
                  value={draft[key]}
                  onInput={(e) => set({ [key]: (e.target as HTMLInputElement).value })}
                />
                <input
                  id={`colour-${key}`}
                  value={draft[key]}
                  onInput={(e) => set({ [key]: (e.target as HTMLInputElement).value })}
                  maxLength={7}
                  spellcheck={false}
                />
              </span>
            </div>
          ))}
          <label>
            Font (system stack)
            <input
              id="font-sans"
              value={draft.font_sans}
              onInput={(e) => set({ font_sans: (e.target as HTMLInputElement).value })}
              maxLength={200}
            />
          </label>
          <label>
            Logo
            <input
              id="logo-file"
              type="file"
              accept="image/png,image/jpeg,image/webp"
              onChange={(e) => pickLogo((e.target as HTMLInputElement).files?.[0])}
            />
          </label>
          {draft.logo && (
            <label>
              Logo text alternative
              <span class="row">
                <input
                  value={draft.logo.alt}
                  onInput={(e) =>
                    set({
                      logo: {
                        data_url: draft.logo?.data_url ?? '',
                        alt: (e.target as HTMLInputElement).value,
                      },
                    })
                  }
                  maxLength={200}
                />
                <button type="button" onClick={() => set({ logo: null })}>
                  Remove logo
                </button>
              </span>
            </label>
          )}
          {problem && (
            <p class="error" role="alert">
              {problem}
            </p>
          )}
          {warnings.length > 0 && (
            <div class="warning" role="status" id="contrast-warnings">
              <strong>Below WCAG AA contrast (4.5:1), so it cannot be saved:</strong>
              <ul>
                {warnings.map((w) => (
                  <li key={w.pair}>
                    {w.pair} {w.ratio}:1 <span class="muted">({w.where})</span>
                  </li>
                ))}
              </ul>
            </div>
          )}
          <div class="row">
            <button
              id="save-appearance"
              class="primary"
              type="submit"
              disabled={!admin || problem !== '' || warnings.length > 0}
            >
              Save
            </button>
            {!admin && <span class="muted">Only administrators save the appearance.</span>}
          </div>
          {status && <p class="notice">{status}</p>}
          {status && servedLogo && (
            <p class="muted" id="logo-served">
              The logo is served to signed-in operators as <code>{servedLogo}</code>.
            </p>
          )}
          {error && <p class="error">{error}</p>}
        </form>
        <section class="preview" ref={previewRef} aria-label="Preview">
          <div class="preview-top">
            {draft.logo ? (
              <img class="logo" src={draft.logo.data_url} alt={draft.logo.alt} />
            ) : (
              <span class="mark">svc</span>
            )}
            <span>Preview</span>
          </div>
          <div class="preview-body">
            <h3>Pending approval</h3>
            <p>
              <strong>payments.send</strong> <span class="muted">$25.00 for task t-1042</span>
            </p>
            <p class="dim">Requested by demo-agent</p>
            <div class="row">
              <button class="primary" type="button">
                Approve
              </button>
              <button type="button">Deny</button>
            </div>
            <p>
              <span class="pill ok">allowed</span> <span class="pill warn">deferred</span>{' '}
              <span class="pill bad">refused</span>
            </p>
            <p>
              <a href="#/appearance">a link</a> <span class="notice">a notice</span>{' '}
              <span class="error">an error</span>
            </p>
          </div>
        </section>
      </div>
    </section>
  );
}
