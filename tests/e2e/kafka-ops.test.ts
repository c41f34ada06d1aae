import { writeFileSync } from 'node:fs';
import { launchForFile } from './support/launcher.js';

/**
 * A whole stack on BUS=kafka (brokers behind TLS and SASL SCRAM-SHA-512): every service's `/readyz`
 * while the brokers answer, hang (as under SIGSTOP) and are stopped; then how long the stack takes
 * to stop and whether a normal run logged an ERROR line. Runs under `make test-kafka` only
 * (tests/e2e/kafka/stack.ts sets ASSAY_E2E_BUS_ENV_FILE and the brokers' control port).
 */
jest.setTimeout(240_000);

const control = process.env.ASSAY_KAFKA_CONTROL_URL;
const describeStack = control && process.env.ASSAY_E2E_BUS_ENV_FILE ? describe : describe.skip;

interface Ready {
  service: string;
  ms: number;
  status: number;
  bus?: string;
}

describeStack('a stack on Kafka: readiness through broker outages, a quiet run, a fast stop', () => {
  const launched = launchForFile();
  const brokers = (action: 'pause' | 'refuse' | 'resume') => fetch(`${control}/${action}`, { method: 'POST' });

  async function readiness(): Promise<Ready[]> {
    return Promise.all(
      Object.entries(launched.assay.ports).map(async ([service, port]) => {
        const t = performance.now();
        try {
          const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(15_000) });
          const body = (await res.json()) as { dependencies?: { bus?: { status: string } } };
          return { service, ms: Math.round(performance.now() - t), status: res.status, bus: body.dependencies?.bus?.status };
        } catch {
          return { service, ms: Math.round(performance.now() - t), status: 0 };
        }
      }),
    );
  }

  async function untilBus(status: string, timeoutMs: number): Promise<Ready[]> {
    const end = Date.now() + timeoutMs;
    let last: Ready[] = [];
    while (Date.now() < end) {
      last = await readiness();
      // discovery-crawler and test-case consume nothing but publish through the outbox: they report the bus too.
      if (last.every((r) => r.bus === status || r.bus === undefined)) return last;
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new Error(`bus not ${status} everywhere within ${timeoutMs} ms: ${JSON.stringify(last)}`);
  }

  const report = (label: string, rows: Ready[]) =>
    // eslint-disable-next-line no-console
    console.info(`${label}: ${rows.map((r) => `${r.service} ${r.status} bus=${r.bus ?? '-'} ${r.ms} ms`).join('; ')}`);

  it('every /readyz answers within 1 s and stays 200 with the broker up, hung and stopped; the bus is reported degraded, then up again', async () => {
    const up = await untilBus('up', 30_000);
    report('brokers up', up);
    expect(up.every((r) => r.status === 200 && r.ms < 1000)).toBe(true);

    await brokers('pause');
    const hung = await untilBus('degraded', 30_000);
    const hungAgain = await readiness();
    report('brokers hung', hungAgain);
    for (const rows of [hung, hungAgain]) {
      expect(rows.filter((r) => r.status !== 200 || r.ms >= 1000)).toEqual([]);
    }
    await brokers('resume');
    await untilBus('up', 60_000);

    await brokers('refuse');
    const stopped = await untilBus('degraded', 30_000);
    const stoppedAgain = await readiness();
    report('brokers stopped', stoppedAgain);
    for (const rows of [stopped, stoppedAgain]) {
      expect(rows.filter((r) => r.status !== 200 || r.ms >= 1000)).toEqual([]);
    }
    await brokers('resume');
    report('brokers back', await untilBus('up', 90_000));
  });

  it('stops in under 5 s; the run logged no ERROR line apart from the outages above', async () => {
    const started = performance.now();
    const result = await launched.assay.stop();
    const ms = Math.round(performance.now() - started);
    // eslint-disable-next-line no-console
    console.info(`stack stop on kafka: ${ms} ms (exit ${result.code ?? result.signal})`);
    if (process.env.ASSAY_KAFKA_STACK_LOG) writeFileSync(process.env.ASSAY_KAFKA_STACK_LOG, launched.assay.output());
    expect(result.survivors).toEqual([]);
    expect(ms).toBeLessThan(5000);
    const errors = launched.assay
      .output()
      .split('\n')
      .filter((l) => /"level":50/.test(l));
    // eslint-disable-next-line no-console
    if (errors.length) console.info(errors.slice(0, 10).join('\n'));
    expect(errors).toEqual([]);
  });
});
