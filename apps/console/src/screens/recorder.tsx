import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Schemas } from '@assay/client';
import { api, errorText, fieldErrors } from '../api';
import { navigate } from '../router';
import { ErrorNote, Field, Page, useLoad } from '../ui';

type Recording = Schemas['Recording'];
type RecordedStep = Recording['steps'][number];
type Alternative = NonNullable<RecordedStep['alternatives']>[number];
type InputResult = Schemas['RecordingInputResult'];
export type RecorderMode = 'interact' | 'assert-visible' | 'assert-text' | 'pick';

/** Keys forwarded by name; any other single character is typed as text. */
const NAMED_KEYS = new Set(['Enter', 'Escape', 'Tab', 'Backspace', 'Delete', 'ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End', 'PageUp', 'PageDown']);

/** Opens a recording of the project's app and closes it when the component goes away. */
function useRecording(projectId: string, startPath?: string): { recording: Recording | undefined; error: string | undefined } {
  const [recording, setRecording] = useState<Recording>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let id: string | undefined;
    let gone = false;
    api()
      .requestJson<Recording>('POST', '/api/v1/recordings', { body: { project_id: projectId, ...(startPath ? { start_path: startPath } : {}) } })
      .then((r) => {
        id = r.id;
        if (gone) void api().request('DELETE', `/api/v1/recordings/${r.id}`).catch(() => undefined);
        else setRecording(r);
      })
      .catch((err) => setError(errorText(err)));
    return () => {
      gone = true;
      if (id) void api().request('DELETE', `/api/v1/recordings/${id}`).catch(() => undefined);
    };
  }, [projectId, startPath]);
  return { recording, error };
}

/**
 * The remote page: the recording's screencast (JPEG frames over its event
 * stream) in an image the user clicks, scrolls and types into. Input goes to
 * the runner by page coordinates, one input at a time and in order.
 */
export function RemotePage(props: { recording: Recording; mode: RecorderMode; onResult: (r: InputResult, at?: { x: number; y: number }) => void; onError: (e: string) => void; onUrl?: (url: string) => void; onEnded?: (reason: string) => void }): JSX.Element {
  const [frame, setFrame] = useState<string>();
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  const propsRef = useRef(props);
  propsRef.current = props;
  const { id, viewport } = props.recording;

  useEffect(() => {
    const ctrl = new AbortController();
    (async () => {
      for await (const e of api().events(`/api/v1/recordings/${id}/stream`, { signal: ctrl.signal })) {
        const data = JSON.parse(e.data) as Record<string, unknown>;
        if (e.event === 'frame') setFrame(`data:image/jpeg;base64,${data.data as string}`);
        else if (e.event === 'url') propsRef.current.onUrl?.(data.url as string);
        else if (e.event === 'ended') propsRef.current.onEnded?.(data.reason as string);
      }
    })().catch((err) => {
      if (!ctrl.signal.aborted) propsRef.current.onError(errorText(err));
    });
    return () => ctrl.abort();
  }, [id]);

  const send = (body: Record<string, unknown>, at?: { x: number; y: number }) => {
    const run = () =>
      api()
        .requestJson<InputResult>('POST', `/api/v1/recordings/${id}/input`, { body })
        .then((r) => propsRef.current.onResult(r, at))
        .catch((err) => propsRef.current.onError(errorText(err)));
    queue.current = queue.current.then(run, run);
  };
  const point = (e: MouseEvent) => {
    const r = (e.currentTarget as HTMLElement).getBoundingClientRect();
    return { x: Math.round(((e.clientX - r.left) / r.width) * viewport.width), y: Math.round(((e.clientY - r.top) / r.height) * viewport.height) };
  };
  const click = (e: MouseEvent) => {
    e.preventDefault();
    (e.currentTarget as HTMLElement).focus();
    const at = point(e);
    const mode = propsRef.current.mode;
    if (mode === 'interact') send({ type: 'click', ...at, ...(e.detail >= 2 ? { click_count: 2 } : {}) }, at);
    else if (mode === 'pick') send({ type: 'pick', ...at }, at);
    else send({ type: 'assert', mode: mode === 'assert-text' ? 'text' : 'visible', ...at }, at);
  };
  const key = (e: KeyboardEvent) => {
    if (e.ctrlKey || e.metaKey || e.altKey || propsRef.current.mode === 'pick') return;
    if (NAMED_KEYS.has(e.key)) send({ type: 'key', key: e.key });
    else if (e.key === ' ') send({ type: 'key', key: 'Space' });
    else if ([...e.key].length === 1) send({ type: 'text', text: e.key });
    else return;
    e.preventDefault();
  };
  const wheel = (e: WheelEvent) => {
    e.preventDefault();
    send({ type: 'scroll', ...point(e), delta_y: Math.max(-10000, Math.min(10000, Math.round(e.deltaY))) });
  };

  return (
    <div
      class={`remote-page mode-${props.mode}`}
      tabIndex={0}
      role="application"
      aria-label="Remote page: click, scroll and type here"
      data-testid="remote-page"
      onClick={click}
      onKeyDown={key}
      onWheel={wheel}
    >
      {frame ? <img src={frame} alt="The recorded page" width={viewport.width} height={viewport.height} draggable={false} /> : <p class="muted">Opening the page…</p>}
    </div>
  );
}

function StabilityBadge(props: { a: Alternative }): JSX.Element {
  return (
    <span class={`badge stability-${props.a.stability}`} title={props.a.reason}>
      {props.a.stability}
    </span>
  );
}

/** A step's selector alternatives, most robust first: each with its stability and why, the chosen one checked. */
function Alternatives(props: { step: RecordedStep; label: string; onChoose: (selector: string) => void }): JSX.Element | null {
  const alts = props.step.alternatives ?? [];
  if (!alts.length) return null;
  return (
    <fieldset class="alternatives">
      <legend class="visually-hidden">{props.label}</legend>
      {alts.map((a) => (
        <label key={a.selector} class={a.matches === 1 ? '' : 'muted'}>
          <input type="radio" name={props.label} checked={props.step.selector === a.selector} disabled={a.matches !== 1} onChange={() => props.onChoose(a.selector)} />
          <code>{a.selector}</code> <StabilityBadge a={a} /> <span class="muted">{a.kind}{a.matches === 1 ? '' : ` · matches ${a.matches}`}</span>
          <span class="reason"> {a.reason}</span>
        </label>
      ))}
    </fieldset>
  );
}

const MODES: Array<[RecorderMode, string]> = [
  ['interact', 'Interact'],
  ['assert-visible', 'Assert visible'],
  ['assert-text', 'Assert text'],
];

/** `/projects/{id}/record`: record a test by using the app, then save the steps as a test case. */
export function RecorderScreen(props: { projectId: string }): JSX.Element {
  const project = useLoad(() => api().requestJson<{ id: string; name: string; base_url: string }>('GET', `/api/v1/projects/${props.projectId}`), [props.projectId]);
  const { recording, error: openError } = useRecording(props.projectId);
  const [steps, setSteps] = useState<RecordedStep[]>([]);
  const [mode, setMode] = useState<RecorderMode>('interact');
  const [url, setUrl] = useState('');
  const [address, setAddress] = useState('');
  const [error, setError] = useState<string>();
  const [ended, setEnded] = useState<string>();
  const [options, setOptions] = useState<{ at: { x: number; y: number }; options: Array<{ value: string; label: string }> }>();
  const [name, setName] = useState('');
  const [saveErrors, setSaveErrors] = useState<Record<string, string>>({});

  useEffect(() => {
    if (recording) setSteps(recording.steps);
  }, [recording?.id]);

  const onResult = (r: InputResult, at?: { x: number; y: number }) => {
    setError(undefined);
    const rec = r.recorded;
    if (rec) setSteps((s) => (rec.updated ? s.map((x, i) => (i === rec.index ? rec.step : x)) : [...s, rec.step]));
    if (r.element?.options && at) setOptions({ at, options: r.element.options });
  };
  const input = (body: Record<string, unknown>) =>
    api()
      .requestJson<InputResult>('POST', `/api/v1/recordings/${recording!.id}/input`, { body })
      .then((r) => onResult(r))
      .catch((err) => setError(errorText(err)));

  const save = async (e: Event) => {
    e.preventDefault();
    setSaveErrors({});
    try {
      const body = { project_id: props.projectId, name, steps: steps.map(({ alternatives: _a, ...s }) => s) };
      const saved = await api().requestJson<{ id: string }>('POST', '/api/v1/test-cases', { body });
      navigate(`/cases/${saved.id}`);
    } catch (err) {
      const fields = fieldErrors(err);
      setSaveErrors(fields);
      setError(Object.keys(fields).length ? `The test case was not saved: ${Object.values(fields).join('; ')}` : errorText(err));
    }
  };

  return (
    <Page title={`Record${project.data ? ` on ${project.data.name}` : ''}`}>
      <ErrorNote error={openError} />
      {recording ? (
        <div class="recorder">
          <div class="recorder-browser">
            <div class="recorder-toolbar">
              <div role="radiogroup" aria-label="What a click does" class="modes">
                {MODES.map(([m, label]) => (
                  <label key={m} class={mode === m ? 'mode active' : 'mode'}>
                    <input type="radio" name="recorder-mode" checked={mode === m} onChange={() => setMode(m)} /> {label}
                  </label>
                ))}
              </div>
              <button type="button" class="secondary" onClick={() => void input({ type: 'back' })}>
                Back
              </button>
              <button type="button" class="secondary" onClick={() => void input({ type: 'reload' })}>
                Reload
              </button>
              <form
                class="address"
                onSubmit={(e) => {
                  e.preventDefault();
                  if (address) void input({ type: 'navigate', url: address }).then(() => setAddress(''));
                }}
              >
                <input aria-label="Go to" placeholder={url || 'a path or URL'} value={address} onInput={(e) => setAddress((e.target as HTMLInputElement).value)} />
                <button type="submit" class="secondary">
                  Go
                </button>
              </form>
            </div>
            <p class="muted page-url" data-testid="recorder-url">
              {url}
            </p>
            <RemotePage recording={recording} mode={mode} onResult={onResult} onError={setError} onUrl={setUrl} onEnded={setEnded} />
            {options ? (
              <div class="card select-options" role="dialog" aria-label="Choose an option">
                <p>Choose an option of the select:</p>
                {options.options.map((o) => (
                  <button
                    key={o.value}
                    type="button"
                    class="secondary"
                    onClick={() => {
                      const at = options.at;
                      setOptions(undefined);
                      void input({ type: 'select', ...at, value: o.value });
                    }}
                  >
                    {o.label || o.value}
                  </button>
                ))}
              </div>
            ) : null}
            {ended ? <p class="error-note">The recording ended: {ended}. Save what was recorded, or open the recorder again.</p> : null}
            <ErrorNote error={error} />
          </div>
          <aside class="recorder-steps">
            <h2>Recorded steps</h2>
            <ol aria-label="Recorded steps">
              {steps.map((s, i) => (
                <li key={i} class="recorded-step">
                  <div>
                    <strong>{s.action}</strong> {s.selector ? <code>{s.selector}</code> : null} {s.value !== undefined ? <span class="muted">{s.action === 'fill' && /password/i.test(s.selector ?? '') ? '••••••' : `“${s.value}”`}</span> : null}
                    <button type="button" class="secondary danger small" aria-label={`Remove recorded step ${i + 1}`} onClick={() => setSteps(steps.filter((_, j) => j !== i))}>
                      ×
                    </button>
                  </div>
                  <Alternatives step={s} label={`Selector of step ${i + 1}`} onChoose={(selector) => setSteps(steps.map((x, j) => (j === i ? { ...x, selector } : x)))} />
                  {saveErrors[`steps[${i}].selector`] ? <p class="field-error">{saveErrors[`steps[${i}].selector`]}</p> : null}
                </li>
              ))}
            </ol>
            <form class="form" onSubmit={save}>
              <Field label="Test case name" id="recorded-name" error={saveErrors.name}>
                {(a) => <input {...a} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />}
              </Field>
              <button type="submit" disabled={!steps.length}>
                Save as test case
              </button>
            </form>
          </aside>
        </div>
      ) : openError ? null : (
        <p class="muted">Opening a browser on the project’s app…</p>
      )}
    </Page>
  );
}

/**
 * The step editor's selector picker: the same remote page, opened at the
 * path the case navigated to last; a click names the element, and the user
 * takes one of its selectors.
 */
export function SelectorPicker(props: { projectId: string; startPath?: string; label: string; onPick: (selector: string) => void; onClose: () => void }): JSX.Element {
  const { recording, error: openError } = useRecording(props.projectId, props.startPath);
  const [picked, setPicked] = useState<NonNullable<InputResult['element']>>();
  const [error, setError] = useState<string>();
  const [mode, setMode] = useState<RecorderMode>('pick');
  return (
    <div class="picker card" role="dialog" aria-label={`Element picker for ${props.label}`}>
      <div class="row">
        <strong>Pick an element</strong>
        <label>
          <input type="checkbox" checked={mode === 'interact'} onChange={(e) => setMode((e.target as HTMLInputElement).checked ? 'interact' : 'pick')} /> Use the page first (clicks and typing go to it)
        </label>
        <button type="button" class="secondary" onClick={props.onClose}>
          Close picker
        </button>
      </div>
      <ErrorNote error={openError ?? error} />
      {recording ? <RemotePage recording={recording} mode={mode} onResult={(r) => (r.element ? setPicked(r.element) : undefined)} onError={setError} /> : null}
      {picked ? (
        <div class="picked">
          <p>
            <code>{picked.tag}</code> {picked.text ? `“${picked.text.slice(0, 80)}”` : ''}
          </p>
          {picked.alternatives.length ? (
            <ul class="alternatives">
              {picked.alternatives.map((a) => (
                <li key={a.selector}>
                  <button type="button" class="secondary" disabled={a.matches !== 1} onClick={() => props.onPick(a.selector)} aria-label={`Use ${a.selector}`}>
                    Use
                  </button>{' '}
                  <code>{a.selector}</code> <StabilityBadge a={a} /> <span class="muted">{a.matches === 1 ? a.reason : `matches ${a.matches} elements`}</span>
                </li>
              ))}
            </ul>
          ) : (
            <p class="muted">No selector names this element alone.</p>
          )}
        </div>
      ) : null}
    </div>
  );
}
