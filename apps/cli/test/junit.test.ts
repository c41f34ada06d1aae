import type { Schemas } from '@assay/client';
import { failureMessage, toJUnitXml, xmlEscape } from '../src/junit.js';
import { validateJUnit } from './junit-schema/validate.js';

const execution: Schemas['Execution'] = {
  id: 'ex_1',
  test_plan_id: 'tp_1',
  project_id: 'pr_1',
  status: 'completed',
  environment: 'staging',
  base_url: 'http://shop.test',
  passed_tests: 1,
  failed_tests: 1,
  total_tests: 2,
  duration_seconds: 4,
  created_at: '2026-11-23T10:00:00.000Z',
  started_at: '2026-11-23T10:00:01.250Z',
  completed_at: '2026-11-23T10:00:05.000Z',
};

const passed: Schemas['TestResult'] = {
  test_id: 't1',
  name: 'Search finds shoes',
  status: 'passed',
  duration_ms: 1234,
  steps: [{ step_id: 's1', name: 'navigate /products', status: 'passed', duration_ms: 300 }],
};

const failed: Schemas['TestResult'] = {
  test_id: 't2',
  name: 'Checkout & pay <"quoted"> \u0007 ✓',
  status: 'failed',
  duration_ms: 2500,
  error: 'Expected text "$99.00" but found "$20.00"',
  screenshot: 'http://gw.test/api/v1/artifacts/a1',
  steps: [
    { step_id: 's1', name: 'navigate /products/1', status: 'passed', duration_ms: 200 },
    { step_id: 's2', name: 'assert_text #price', status: 'failed', duration_ms: 2000, error: 'Expected text "$99.00" but found "$20.00"' },
    { step_id: 's3', name: 'click #buy', status: 'skipped', duration_ms: 0 },
  ],
};

const skipped: Schemas['TestResult'] = { test_id: 't3', name: 'Never ran', status: 'skipped', duration_ms: 0, steps: [] };

describe('JUnit report', () => {
  it('is valid against both the Jenkins and the Ant JUnit schemas, with one testcase per test and the failing step, error and screenshot', async () => {
    const xml = toJUnitXml({ execution, testResults: [passed, failed], planName: 'Shop smoke', hostname: 'gw.test' });
    expect(await validateJUnit(xml, 'jenkins-junit.xsd')).toEqual({ valid: true, errors: [] });
    expect(await validateJUnit(xml, 'ant-junit.xsd')).toEqual({ valid: true, errors: [] });
    expect(xml.match(/<testcase /g)).toHaveLength(2);
    expect(xml).toContain('<testsuite package="assay" id="0" name="Shop smoke" timestamp="2026-11-23T10:00:01" hostname="gw.test" tests="2" failures="1" errors="0" time="4.000">');
    expect(xml).toContain('<testcase name="Search finds shoes" classname="Shop smoke" time="1.234"/>');
    expect(xml).toContain('<testcase name="Checkout &amp; pay &lt;&quot;quoted&quot;&gt;  ✓" classname="Shop smoke" time="2.500">');
    expect(xml).toContain('<failure message="step 2 &quot;assert_text #price&quot;: Expected text &quot;$99.00&quot; but found &quot;$20.00&quot;" type="step_failed">');
    expect(xml).toContain('Screenshot: http://gw.test/api/v1/artifacts/a1');
    expect(xml).toContain('<property name="environment" value="staging"/>');
  });

  it('marks skipped tests with <skipped/>, valid for Jenkins, which Ant’s schema cannot express', async () => {
    const xml = toJUnitXml({ execution: { ...execution, status: 'failed', error: 'Execution timed out after 1 s' }, testResults: [passed, skipped], planName: 'P', hostname: 'gw' });
    expect(await validateJUnit(xml, 'jenkins-junit.xsd')).toEqual({ valid: true, errors: [] });
    const ant = await validateJUnit(xml, 'ant-junit.xsd');
    expect(ant.valid).toBe(false);
    expect(ant.errors.join('\n')).toMatch(/skipped/);
    expect(xml).toContain('<system-err>Execution timed out after 1 s</system-err>');
  });

  it('would catch a report the schemas refuse (the validator is not a no-op)', async () => {
    const broken = toJUnitXml({ execution, testResults: [failed], planName: 'P', hostname: 'gw' }).replace(' type="step_failed"', '').replace('<properties>', '<properties><bogus/>');
    expect((await validateJUnit(broken, 'ant-junit.xsd')).valid).toBe(false);
    expect((await validateJUnit(broken, 'jenkins-junit.xsd')).valid).toBe(false);
  });

  it('names the failing step, else the error alone, and drops characters XML cannot carry', () => {
    expect(failureMessage(failed)).toBe('step 2 "assert_text #price": Expected text "$99.00" but found "$20.00"');
    expect(failureMessage({ ...failed, steps: [] })).toBe('Expected text "$99.00" but found "$20.00"');
    expect(xmlEscape('a\u0000b\u001fc\ud800d&')).toBe('abcd&amp;');
  });
});
