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
  /** `keptMark`: how the runner's config names a test's output folder it set aside in the worker (KEPT_MARK). */
  constructor(options = {}) {
    this.keptMark = options.keptMark;
    this.rootDir = '';
    this.outputDirs = [];
    this.taken = new Set();
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
    this.outputDirs = [...new Set(config.projects.map((p) => p.outputDir))];
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
   * The attachment's file, linked (else copied) at once to a folder of this attempt's own. The worker may already
   * have emptied the test's output folder (the next test's start, when two titles make the same folder; the test's
   * end, under preserveOutput 'never'): the runner's config makes it set the folder aside instead (renamed with
   * KEPT_MARK, in order), so the file is then taken from the oldest folder set aside that holds it and was not taken.
   */
  keep(file) {
    try {
      this.kept = (this.kept ?? 0) + 1;
      const dir = path.join(path.dirname(path.dirname(file)), '.assay-attachments', String(this.kept));
      fs.mkdirSync(dir, { recursive: true });
      const to = path.join(dir, path.basename(file));
      if (this.take(file, to)) return to;
      // Listed only now: a folder renamed while the original was tried is among them.
      for (const from of this.setAside(file)) {
        if (this.taken.has(from) || !this.take(from, to)) continue;
        this.taken.add(from);
        return to;
      }
      return file;
    } catch {
      return file;
    }
  }
  /** Links (else copies) a file; false when it is not there (any more). */
  take(from, to) {
    try {
      fs.linkSync(from, to);
      return true;
    } catch {
      try {
        fs.copyFileSync(from, to);
        return true;
      } catch {
        return false;
      }
    }
  }
  /** Where the file is when its test's output folder was set aside: the folders set aside, oldest first. */
  setAside(file) {
    const outputDir = this.outputDirs.find((d) => file.startsWith(d + path.sep));
    if (!outputDir || !this.keptMark) return [];
    const [folder, ...rest] = path.relative(outputDir, file).split(path.sep);
    if (!folder || !rest.length) return [];
    return fs
      .readdirSync(outputDir)
      .filter((name) => name.startsWith(folder + this.keptMark))
      .sort()
      .map((name) => path.join(outputDir, name, ...rest));
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
