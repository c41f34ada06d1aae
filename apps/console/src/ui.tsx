import type { ComponentChildren, JSX } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, artifactBlob, errorText } from './api';

/** Loads data on mount and when `deps` change; `reload` fetches again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data: T | undefined; error: string | undefined; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data: T | undefined; error: string | undefined; loading: boolean }>({ data: undefined, error: undefined, loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, error: undefined, loading: false }),
      (err) => live && setState({ data: undefined, error: errorText(err), loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { ...state, reload };
}

export function Page(props: { title: string; actions?: ComponentChildren; children: ComponentChildren }): JSX.Element {
  useEffect(() => {
    document.title = `${props.title} · Assay`;
  }, [props.title]);
  return (
    <section class="page" aria-labelledby="page-title">
      <header class="page-head">
        <h1 id="page-title" tabIndex={-1}>
          {props.title}
        </h1>
        {props.actions ? <div class="page-actions">{props.actions}</div> : null}
      </header>
      {props.children}
    </section>
  );
}

export function ErrorNote(props: { error: string | undefined }): JSX.Element | null {
  if (!props.error) return null;
  return (
    <p class="error-note" role="alert">
      {props.error}
    </p>
  );
}

export function Loading(props: { what: string }): JSX.Element {
  return (
    <p class="muted" role="status">
      Loading {props.what}…
    </p>
  );
}

/** A labelled form field with its error right under it (aria-describedby). */
export function Field(props: { label: string; id: string; error?: string | undefined; hint?: string; children: (a: { id: string; 'aria-invalid': boolean; 'aria-describedby'?: string }) => ComponentChildren }): JSX.Element {
  const describedBy = [props.error ? `${props.id}-error` : '', props.hint ? `${props.id}-hint` : ''].filter(Boolean).join(' ');
  return (
    <div class={`field${props.error ? ' has-error' : ''}`}>
      <label for={props.id}>{props.label}</label>
      {props.children({ id: props.id, 'aria-invalid': Boolean(props.error), ...(describedBy ? { 'aria-describedby': describedBy } : {}) })}
      {props.hint ? (
        <small id={`${props.id}-hint`} class="muted">
          {props.hint}
        </small>
      ) : null}
      {props.error ? (
        <small id={`${props.id}-error`} class="field-error">
          {props.error}
        </small>
      ) : null}
    </div>
  );
}

/** The organization's projects (up to 200), for the screens that show one project at a time. */
export function useProjects(): ReturnType<typeof useLoad<Array<{ id: string; name: string; base_url: string }>>> {
  return useLoad(async () => (await api().api.GET('/api/v1/projects', { params: { query: { limit: 200 } } })).data!.data, []);
}

/** A "Project" picker over `useProjects().data`, labelled with `label for` like every field. */
export function ProjectSelect(props: { id: string; projects: Array<{ id: string; name: string }> | undefined; value: string; onChange: (id: string) => void; error?: string | undefined }): JSX.Element {
  return (
    <Field label="Project" id={props.id} error={props.error}>
      {(a) => (
        <select {...a} value={props.value} onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}>
          {props.projects?.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

export function StatusBadge(props: { status: string }): JSX.Element {
  return <span class={`badge badge-${props.status}`}>{props.status}</span>;
}

/**
 * A run's main badge: what a person asks first, did it pass? Green only when
 * every case passed, red when one failed (or the run broke), grey when
 * cancelled; while it runs, where it is (queued, running).
 */
export function OutcomeBadge(props: { outcome: string | null | undefined; status: string }): JSX.Element {
  if (!props.outcome) return <StatusBadge status={props.status} />;
  return (
    <span class={`badge outcome outcome-${props.outcome}`} data-testid="outcome">
      {props.outcome}
    </span>
  );
}

/** A secret shown once, with a copy button. */
export function SecretOnce(props: { label: string; secret: string; onDone: () => void; children?: ComponentChildren }): JSX.Element {
  const [copied, setCopied] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <div class="secret-once" role="region" aria-label={props.label} tabIndex={-1} ref={ref}>
      <p>
        <strong>{props.label}</strong>: copy it now, it is not shown again.
      </p>
      <code class="secret" data-testid="secret-value">
        {props.secret}
      </code>
      {props.children}
      <div class="row">
        <button
          type="button"
          onClick={async () => {
            try {
              await navigator.clipboard.writeText(props.secret);
              setCopied(true);
            } catch {
              setCopied(false);
            }
          }}
        >
          Copy
        </button>
        <span role="status">{copied ? 'Copied to the clipboard' : ''}</span>
        <button type="button" class="secondary" onClick={props.onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

/** An image of an API artifact (fetched with the session token, shown as a blob: URL). */
export function ArtifactImage(props: { url: string; alt: string }): JSX.Element {
  const [src, setSrc] = useState<string>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let url: string | undefined;
    let live = true;
    artifactBlob(props.url).then(
      (blob) => {
        if (!live) return;
        url = URL.createObjectURL(blob);
        setSrc(url);
      },
      (err) => live && setError(errorText(err)),
    );
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [props.url]);
  if (error) return <p class="error-note">Screenshot unavailable: {error}</p>;
  if (!src) return <Loading what="screenshot" />;
  return <img class="screenshot" src={src} alt={props.alt} />;
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

export function ms(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  return n < 1000 ? `${n} ms` : `${(n / 1000).toFixed(1)} s`;
}

/** A progress bar with its numbers in text too. */
export function QuotaBar(props: { label: string; used: number; limit: number | null; unit: string }): JSX.Element {
  const pct = props.limit ? Math.min(100, Math.round((props.used / props.limit) * 100)) : 0;
  return (
    <div class="quota">
      <div class="quota-label">
        <span>{props.label}</span>
        <span>
          {props.used.toLocaleString()} / {props.limit === null ? 'unlimited' : props.limit.toLocaleString()} {props.unit}
        </span>
      </div>
      <div class={`bar${pct >= 100 ? ' bar-full' : pct >= 80 ? ' bar-warn' : ''}`} role="progressbar" aria-label={props.label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct}>
        <div class="bar-fill" style={{ width: `${pct}%` }} />
      </div>
    </div>
  );
}
