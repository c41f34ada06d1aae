import { RunProgress } from './progress.js';

/** A terminal that records what was written and replays the cursor moves RunProgress uses. */
class FakeTerminal {
  columns = 60;
  raw = '';
  write(chunk: string) {
    this.raw += chunk;
    return true;
  }
  /** The screen after the writes: `ESC[nA ESC[0J` erases the last n lines. */
  screen(): string[] {
    const lines: string[] = [];
    let current = '';
    // eslint-disable-next-line no-control-regex -- parsing the escape sequences written
    for (const token of this.raw.split(/(\x1b\[\d+A\x1b\[0J|\n)/)) {
      const erase = /^\x1b\[(\d+)A\x1b\[0J$/.exec(token); // eslint-disable-line no-control-regex
      if (erase) lines.splice(lines.length - Number(erase[1]));
      else if (token === '\n') {
        lines.push(current);
        current = '';
      } else current += token;
    }
    // eslint-disable-next-line no-control-regex -- colours off for the assertions
    return lines.map((l) => l.replace(/\x1b\[\d+m/g, ''));
  }
}

const started = (test_id: string, name: string) => ({ event: 'test_started' as const, data: { execution_id: 'e', test_id, name, position: 0 } });
const step = (test_id: string, name: string) => ({ event: 'step_finished' as const, data: { execution_id: 'e', test_id, step_id: 's', name, status: 'passed' as const, duration_ms: 5 } });
const finished = (test_id: string, name: string, status: 'passed' | 'failed', error?: string) => ({
  event: 'test_finished' as const,
  data: { execution_id: 'e', test_id, name, status, duration_ms: 1500, ...(error ? { error } : {}) },
});

describe('RunProgress', () => {
  it('keeps one live line per running test on a terminal and replaces it with ✓ or ✗ when the test ends', () => {
    const term = new FakeTerminal();
    const progress = new RunProgress(term, true);
    progress.onEvent(started('a', 'Login'));
    progress.onEvent(started('b', 'Checkout'));
    progress.onEvent(step('a', 'fill #email'));
    expect(term.screen()).toEqual([expect.stringMatching(/^. Login · step 1: fill #email$/), expect.stringMatching(/^. Checkout$/)]);
    progress.onEvent(finished('a', 'Login', 'passed'));
    expect(term.screen()).toEqual(['✓ Login (1.5 s)', expect.stringMatching(/^. Checkout$/)]);
    progress.onEvent(finished('b', 'Checkout', 'failed', 'Element not found: #pay'));
    progress.stop();
    expect(term.screen()).toEqual(['✓ Login (1.5 s)', '✗ Checkout (1.5 s)', '    Element not found: #pay']);
  });

  it('prints plain lines without escape codes outside a terminal', () => {
    const out = new FakeTerminal();
    const progress = new RunProgress(out, false);
    progress.onEvent(started('a', 'Login'));
    progress.onEvent(step('a', 'fill #email'));
    progress.onEvent(finished('a', 'Login', 'failed', 'boom'));
    progress.stop();
    expect(out.raw).toBe('FAIL Login (1.5 s)\n    boom\n');
  });
});
