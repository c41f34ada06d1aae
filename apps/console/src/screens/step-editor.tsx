import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { api, errorText } from '../api';
import { ACTIONS, actionForm, REQUEST_TEMPLATE, type ActionForm, type EditableStep } from '../steps';
import { Field } from '../ui';
import { SelectorPicker } from './recorder';

export const emptyStep = (): EditableStep => ({ action: 'navigate', selector: '', value: '/', description: '', timeout: '' });

/** The value of the last `navigate` step before step `i`: where the picker opens. */
const lastNavigation = (steps: EditableStep[], i: number): string | undefined => steps.slice(0, i).reverse().find((s) => s.action === 'navigate' && s.value)?.value;

/** What one step's fields need from the editor around them. */
interface StepProps {
  step: EditableStep;
  /** Its position (0-based). */
  i: number;
  rule: ActionForm | undefined;
  /** The server's error for one of its fields (`selector`, `value`, ...). */
  err: (field: string) => string | undefined;
  /** Every error the server named, by field path. */
  errors: Record<string, string>;
  update: (patch: Partial<EditableStep>) => void;
}

/**
 * The step list of the case editor: each step's fields as its action takes
 * them (the contracts' step table), the server's error under the field it
 * names, the element picker, moving and removing steps.
 */
export function StepsEditor(props: { steps: EditableStep[]; onChange: (steps: EditableStep[]) => void; errors: Record<string, string>; projectId: string; onError: (error: string | undefined) => void }): JSX.Element {
  const { steps, onChange, errors } = props;
  /** The step whose selector is being picked on the remote page. */
  const [picking, setPicking] = useState<number>();
  const update = (i: number, patch: Partial<EditableStep>) => onChange(steps.map((s, j) => (j === i ? { ...s, ...patch } : s)));
  const move = (i: number, d: number) => {
    const next = [...steps];
    const [s] = next.splice(i, 1);
    next.splice(i + d, 0, s!);
    onChange(next);
  };
  return (
    <fieldset class="steps-editor">
      <legend>Steps</legend>
      {errors.steps ? <p class="field-error">{errors.steps}</p> : null}
      <ol>
        {steps.map((s, i) => {
          const n = i + 1;
          const step: StepProps = { step: s, i, rule: actionForm(s.action), err: (f) => errors[`steps[${i}].${f}`], errors, update: (patch) => update(i, patch) };
          return (
            <li key={i} class="step-row" aria-label={`Step ${n}`}>
              <ActionField {...step} />
              <SelectorField
                {...step}
                projectId={props.projectId}
                picking={picking === i}
                onPicking={(on) => setPicking(on ? i : undefined)}
                {...(lastNavigation(steps, i) ? { startPath: lastNavigation(steps, i)! } : {})}
              />
              <ValueField {...step} projectId={props.projectId} onError={props.onError} />
              <CallField {...step} />
              <VisualFields {...step} />
              {step.rule?.timeout || step.err('timeout') ? (
                <Field label={`Step ${n} timeout (ms)`} id={`step-${i}-timeout`} error={step.err('timeout')}>
                  {(a) => <input {...a} inputMode="numeric" value={s.timeout} onInput={(e) => update(i, { timeout: (e.target as HTMLInputElement).value })} />}
                </Field>
              ) : null}
              <Field label={`Step ${n} description`} id={`step-${i}-description`} error={step.err('description')}>
                {(a) => <input {...a} value={s.description} onInput={(e) => update(i, { description: (e.target as HTMLInputElement).value })} />}
              </Field>
              <div class="step-tools">
                <button type="button" class="secondary" disabled={i === 0} onClick={() => move(i, -1)} aria-label={`Move step ${n} up`}>
                  ↑
                </button>
                <button type="button" class="secondary" disabled={i === steps.length - 1} onClick={() => move(i, 1)} aria-label={`Move step ${n} down`}>
                  ↓
                </button>
                <button type="button" class="secondary danger" onClick={() => onChange(steps.filter((_, j) => j !== i))} aria-label={`Remove step ${n}`}>
                  Remove
                </button>
              </div>
            </li>
          );
        })}
      </ol>
      <button type="button" class="secondary" onClick={() => onChange([...steps, { ...emptyStep(), action: 'click', value: '' }])}>
        Add step
      </button>
    </fieldset>
  );
}

function ActionField({ step, i, rule, err, update }: StepProps): JSX.Element {
  return (
    <Field label={`Step ${i + 1} action`} id={`step-${i}-action`} error={err('action')} hint={rule?.hint ?? ''}>
      {(a) => (
        <select {...a} value={step.action} onChange={(e) => update({ action: (e.target as HTMLSelectElement).value })}>
          {Object.keys(ACTIONS).map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/** The selector, and **Pick**: the remote page opened at the case's last `navigate`, a click there names the element. */
function SelectorField(props: StepProps & { projectId: string; picking: boolean; onPicking: (on: boolean) => void; startPath?: string }): JSX.Element {
  const { step, i, rule, err, update } = props;
  const n = i + 1;
  return (
    <>
      {rule?.selector !== 'no' || err('selector') ? (
        <Field label={`Step ${n} selector`} id={`step-${i}-selector`} error={err('selector')}>
          {(a) => <input {...a} value={step.selector} placeholder="#id, text=…, role=button[name=…]" onInput={(e) => update({ selector: (e.target as HTMLInputElement).value })} />}
        </Field>
      ) : null}
      {rule?.selector !== 'no' && props.projectId ? (
        props.picking ? (
          <SelectorPicker
            projectId={props.projectId}
            label={`step ${n}`}
            {...(props.startPath ? { startPath: props.startPath } : {})}
            onPick={(selector) => {
              update({ selector });
              props.onPicking(false);
            }}
            onClose={() => props.onPicking(false)}
          />
        ) : (
          <button type="button" class="secondary small" onClick={() => props.onPicking(true)} aria-label={`Pick an element for step ${n}`}>
            Pick
          </button>
        )
      ) : null}
    </>
  );
}

/** The value; a password-like field's value is hidden, and **Save as secret** moves a typed value into a project secret. */
function ValueField(props: StepProps & { projectId: string; onError: (error: string | undefined) => void }): JSX.Element | null {
  const { step, i, rule, err, update } = props;
  if (rule?.value === 'no' && !err('value')) return null;
  /** Stores a typed value as a project secret and puts its `{{secret.name}}` reference in the step instead. */
  const saveAsSecret = async () => {
    const suggested = (/[#[]?([A-Za-z_][A-Za-z0-9_-]*)/.exec(step.selector.replace(/^.*[#=\s"']/, ''))?.[1] ?? 'secret').replace(/-/g, '_');
    const name = window.prompt('Name of the secret (steps use it as {{secret.name}})', suggested)?.trim();
    if (!name) return;
    props.onError(undefined);
    try {
      await api().requestJson('PUT', `/api/v1/projects/${encodeURIComponent(props.projectId)}/variables/${encodeURIComponent(name)}`, { body: { value: step.value, secret: true } });
      update({ value: `{{secret.${name}}}` });
    } catch (e) {
      props.onError(errorText(e));
    }
  };
  return (
    <Field label={`Step ${i + 1} value`} id={`step-${i}-value`} error={err('value')}>
      {(a) => (
        <>
          {/* A password typed here is not shown on screen; "Save as secret" moves it out of the case altogether. */}
          <input {...a} type={/pass(word)?|pwd|secret|token/i.test(step.selector) ? 'password' : 'text'} autoComplete="off" value={step.value} onInput={(e) => update({ value: (e.target as HTMLInputElement).value })} />
          {(step.action === 'fill' || step.action === 'type') && step.value && !/\{\{/.test(step.value) && props.projectId ? (
            <button type="button" class="link" onClick={() => void saveAsSecret()}>
              Save as secret<span class="visually-hidden"> (step {i + 1})</span>
            </button>
          ) : null}
        </>
      )}
    </Field>
  );
}

/** A `request` step's call as one JSON object (request, expect, save_as); the server's errors for any of them under it. */
function CallField({ step, i, rule, errors, update }: StepProps): JSX.Element | null {
  const prefix = `steps[${i}].`;
  const callErr =
    Object.entries(errors)
      .filter(([k]) => k.startsWith(prefix) && /^(request|expect|save_as)\b/.test(k.slice(prefix.length)))
      .map(([k, v]) => `${k.slice(prefix.length)} ${v}`)
      .join('; ') || undefined;
  if (!rule?.call && !callErr) return null;
  return (
    <Field label={`Step ${i + 1} request (JSON: request, expect, save_as)`} id={`step-${i}-request`} error={callErr}>
      {(a) => <textarea {...a} rows={6} spellcheck={false} value={step.call ?? REQUEST_TEMPLATE} onInput={(e) => update({ call: (e.target as HTMLTextAreaElement).value })} />}
    </Field>
  );
}

/** An `assert_screenshot` step's mask selectors, threshold and allowed share of differing pixels. */
function VisualFields({ step, i, rule, err, errors, update }: StepProps): JSX.Element | null {
  if (!rule?.visual) return null;
  const n = i + 1;
  const maskErr =
    Object.entries(errors)
      .filter(([k]) => k.startsWith(`steps[${i}].mask`))
      .map(([, v]) => v)
      .join('; ') || undefined;
  return (
    <>
      <Field label={`Step ${n} mask (one selector per line)`} id={`step-${i}-mask`} error={maskErr} hint="Dynamic parts (dates, avatars), painted over in the baseline and every capture">
        {(a) => <textarea {...a} rows={2} spellcheck={false} value={step.mask ?? ''} onInput={(e) => update({ mask: (e.target as HTMLTextAreaElement).value })} />}
      </Field>
      <Field label={`Step ${n} threshold (0–1, default 0.1)`} id={`step-${i}-threshold`} error={err('threshold')}>
        {(a) => <input {...a} inputMode="decimal" value={step.threshold ?? ''} onInput={(e) => update({ threshold: (e.target as HTMLInputElement).value })} />}
      </Field>
      <Field label={`Step ${n} allowed share of differing pixels (0–1, default 0)`} id={`step-${i}-max-diff-ratio`} error={err('max_diff_ratio')}>
        {(a) => <input {...a} inputMode="decimal" value={step.max_diff_ratio ?? ''} onInput={(e) => update({ max_diff_ratio: (e.target as HTMLInputElement).value })} />}
      </Field>
    </>
  );
}
