import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { credentials, login, startRunnerHarness, type RunnerHarness } from './harness.js';

jest.setTimeout(120_000);

/**
 * The cases of one execution share a browser context, reset between them
 * (BrowserPool.recycle): what one case leaves must be gone for the next, as if
 * each had a context of its own. One lane, so each case gets the context the
 * case before it used.
 */
let h: RunnerHarness;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'assay-isolation-'));
  h = await startRunnerHarness({ concurrency: 1, stepTimeoutMs: 2000, profileFile: path.join(dir, 'profile.json') });
});
afterAll(async () => {
  await h.close();
  await rm(dir, { recursive: true, force: true });
});

it('a recycled context keeps nothing of the case before: no session cookie, no local storage, no history', async () => {
  const t = h.tenant();
  const { projectId, planId } = await t.plan({
    'Signs in and adds a todo': [
      ...login,
      { action: 'navigate', value: '/todos' },
      { action: 'fill', selector: '#new-todo', value: 'left behind' },
      { action: 'press', selector: '#new-todo', value: 'Enter' },
      { action: 'assert_count', selector: '[data-testid=todo-item]', value: '1' },
    ],
    'Starts signed out with no todos': [
      // The shop sends a visitor without its session cookie to the sign-in page.
      { action: 'navigate', value: '/dashboard' },
      { action: 'assert_url', value: '/login' },
      // Todos live in localStorage.
      { action: 'navigate', value: '/todos' },
      { action: 'assert_count', selector: '[data-testid=todo-item]', value: '0' },
    ],
    'Starts on a blank tab': [{ action: 'go_back' }],
  });
  const r = await t.ex('POST', '/api/v1/executions', { test_plan_id: planId, project_id: projectId, variables: credentials });
  expect(r.status).toBe(200);
  const results = r.body.results.test_results as Array<{ name: string; status: string; error: string | null }>;
  expect(results.map((x) => [x.name, x.status])).toEqual([
    ['Signs in and adds a todo', 'passed'],
    ['Starts signed out with no todos', 'passed'],
    ['Starts on a blank tab', 'failed'],
  ]);
  expect(results[2]!.error).toBe('Cannot go back from about:blank: the tab has no earlier page');

  // The second and third cases ran in the first one's context: recycled, not new.
  const phases = JSON.parse(await readFile(path.join(dir, 'profile.json'), 'utf8')) as Record<string, number[]>;
  expect(phases['context create']).toHaveLength(1);
  expect(phases['context recycle']).toHaveLength(2);
});
