// The Playwright reporter the runner injects into every suite run and listing
// (in the box, loaded by Playwright Test itself): each event is one JSON line
// on file descriptor 3, which the runner reads. Plain JavaScript: Playwright
// loads it from here as it is.
import fs from 'node:fs';
import path from 'node:path';

const MAX_TEXT = 16 * 1024;
const MAX_STEPS = 300;
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;
const clean = (s, max = MAX_TEXT) => String(s ?? '').replace(ANSI, '').slice(0, max);
const chunks = (list) => clean(list.map((c) => (typeof c === 'string' ? c : Buffer.from(c).toString('utf8'))).join(''));

const viewportOf = (test) => {
  const vp = test.parent.project()?.use?.viewport;
  return vp && vp.width && vp.height ? `${vp.width}x${vp.height}` : null;
};

class AssayReporter {
  constructor() {
    this.rootDir = '';
  }
  send(event) {
    try {
      fs.writeSync(3, `${JSON.stringify(event)}\n`);
    } catch {
      // The runner closed the channel: it stops this run.
    }
  }
  printsToStdio() {
    return false;
  }
  where(test) {
    const [, project, , ...titles] = test.titlePath();
    return { project: project ?? '', file: path.relative(this.rootDir, test.location.file).split(path.sep).join('/'), line: test.location.line, title_path: titles };
  }
  onConfigure(config) {
    this.rootDir = config.rootDir;
  }
  onBegin(config, suite) {
    this.rootDir = config.rootDir;
    const tests = suite.allTests().map((t) => ({ ...this.where(t), tags: t.tags ?? [] }));
    this.send({ type: 'begin', version: config.version, root_dir: config.rootDir, fully_parallel: !!config.fullyParallel, projects: config.projects.map((p) => p.name), tests });
  }
  onTestBegin(test, result) {
    this.send({ type: 'test_begin', ...this.where(test), retry: result.retry, start: result.startTime.toISOString() });
  }
  steps(list, depth, out) {
    for (const s of list) {
      if (out.length >= MAX_STEPS) return out;
      if (s.category === 'test.step' || s.category === 'pw:api' || s.category === 'expect') {
        out.push({ title: clean(s.title, 500), category: s.category, depth, duration_ms: Math.max(0, Math.round(s.duration)), ...(s.error ? { error: clean(s.error.message, 2000) } : {}) });
      }
      this.steps(s.steps ?? [], s.category === 'test.step' ? depth + 1 : depth, out);
    }
    return out;
  }
  /**
   * The attachment's file, linked (else copied) at once to a folder of this attempt's own: two tests whose titles
   * make the same output folder share it, and the next one's start empties it before the runner has read the file.
   */
  keep(file) {
    try {
      this.kept = (this.kept ?? 0) + 1;
      const dir = path.join(path.dirname(path.dirname(file)), '.assay-attachments', String(this.kept));
      fs.mkdirSync(dir, { recursive: true });
      const to = path.join(dir, path.basename(file));
      try {
        fs.linkSync(file, to);
      } catch {
        fs.copyFileSync(file, to);
      }
      return to;
    } catch {
      return file;
    }
  }
  onTestEnd(test, result) {
    const finalAttempt = result.status === 'skipped' || result.status === 'interrupted' || result.status === test.expectedStatus || result.retry >= test.retries;
    this.send({
      type: 'test_end',
      ...this.where(test),
      retry: result.retry,
      status: result.status,
      expected_status: test.expectedStatus,
      final: finalAttempt,
      outcome: test.outcome(),
      duration_ms: Math.max(0, Math.round(result.duration)),
      start: result.startTime.toISOString(),
      errors: result.errors.map((e) => ({ message: clean(e.message ?? e.value, 8000), ...(e.location ? { location: e.location } : {}) })),
      steps: this.steps(result.steps, 0, []),
      attachments: result.attachments.filter((a) => a.path).map((a) => ({ name: a.name, content_type: a.contentType, path: this.keep(a.path) })),
      viewport: viewportOf(test),
      stdout: chunks(result.stdout),
      stderr: chunks(result.stderr),
    });
  }
  onError(error) {
    this.send({ type: 'error', message: clean(error.message ?? error.value, 8000) });
  }
  onEnd(result) {
    this.send({ type: 'end', status: result.status });
  }
}

export default AssayReporter;
