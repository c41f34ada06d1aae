import type { Schemas } from '@assay/client';

export interface JUnitInput {
  execution: Schemas['Execution'];
  testResults: Schemas['TestResult'][];
  planName: string;
  /** Shown as the suite's hostname: the gateway that ran it. */
  hostname: string;
}

// XML 1.0 forbids most control characters even escaped: they are dropped.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const INVALID_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function xmlEscape(text: string): string {
  return text.replace(INVALID_XML, '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/** Text content that keeps line breaks in attribute-free elements. */
const text = (s: string) => xmlEscape(s);
const attr = (s: string) => xmlEscape(s).replace(/\r\n|\r|\n/g, '&#10;').replace(/\t/g, '&#9;');
const seconds = (ms: number) => (Math.max(0, ms) / 1000).toFixed(3);

/** The Ant schema's timestamp: UTC, no zone designator, no fraction. */
const timestamp = (iso: string | null | undefined) => (iso ? new Date(iso) : new Date()).toISOString().slice(0, 19);

/** `step 3 "Click #buy": Element not found ...`: the failing step and its error. */
export function failureMessage(result: Schemas['TestResult']): string {
  const index = result.steps.findIndex((s) => s.status === 'failed');
  const step = result.steps[index];
  const error = result.error ?? step?.error ?? 'failed';
  return step ? `step ${index + 1} "${step.name}": ${error}` : error;
}

function failureBody(result: Schemas['TestResult']): string {
  const lines = [failureMessage(result)];
  if (result.screenshot) lines.push(`Screenshot: ${result.screenshot}`);
  if (result.trace) lines.push(`Trace: ${result.trace}`);
  if (result.steps.length) {
    lines.push('Steps:');
    result.steps.forEach((s, i) => lines.push(`  ${s.status === 'passed' ? 'ok  ' : s.status === 'failed' ? 'FAIL' : 'skip'} ${i + 1}. ${s.name} (${s.duration_ms} ms)${s.error ? `: ${s.error}` : ''}`));
  }
  return lines.join('\n');
}

/**
 * The run as JUnit XML: one `testsuite` for the plan, one `testcase` per test
 * case, a `failure` naming the failing step, its error and the screenshot URL.
 * Valid against Jenkins' JUnit schema always, and against the Apache Ant
 * (Windy Road) JUnit schema when no test was skipped: Ant's format has no
 * `skipped`. GitHub (test-reporter actions), GitLab and Jenkins read it.
 */
export function toJUnitXml(input: JUnitInput): string {
  const { execution, testResults } = input;
  const failures = testResults.filter((r) => r.status === 'failed').length;
  const skipped = testResults.filter((r) => r.status === 'skipped').length;
  const suiteMs = execution.duration_seconds !== null && execution.duration_seconds !== undefined ? execution.duration_seconds * 1000 : testResults.reduce((n, r) => n + r.duration_ms, 0);
  const properties: Array<[string, string | null | undefined]> = [
    ['execution_id', execution.id],
    ['test_plan_id', execution.test_plan_id],
    ['project_id', execution.project_id],
    ['status', execution.status],
    ['environment', execution.environment],
    ['base_url', execution.base_url],
  ];
  const cases = testResults.map((r) => {
    const open = `    <testcase name="${attr(r.name)}" classname="${attr(input.planName)}" time="${seconds(r.duration_ms)}"`;
    if (r.status === 'failed') return `${open}>\n      <failure message="${attr(failureMessage(r))}" type="step_failed">${text(failureBody(r))}</failure>\n    </testcase>`;
    if (r.status === 'skipped') return `${open}>\n      <skipped/>\n    </testcase>`;
    return `${open}/>`;
  });
  const out = [
    `Assay execution ${execution.id}: ${execution.status}`,
    ...testResults.filter((r) => r.screenshot).map((r) => `${r.name}: ${r.screenshot}`),
  ].join('\n');
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<testsuites>',
    `  <testsuite package="assay" id="0" name="${attr(input.planName)}" timestamp="${timestamp(execution.started_at ?? execution.created_at)}" hostname="${attr(input.hostname || 'assay')}" tests="${testResults.length}" failures="${failures}" errors="0"${skipped ? ` skipped="${skipped}"` : ''} time="${seconds(suiteMs)}">`,
    '    <properties>',
    ...properties.filter(([, v]) => v !== undefined && v !== null && v !== '').map(([k, v]) => `      <property name="${k}" value="${attr(String(v))}"/>`),
    '    </properties>',
    ...cases,
    `    <system-out>${text(out)}</system-out>`,
    `    <system-err>${text(execution.error ?? '')}</system-err>`,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
