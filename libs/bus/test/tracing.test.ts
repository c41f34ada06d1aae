import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { createDatabase, migrateToLatest, type Database } from '@assay/db';
import { createSilentLogger } from '@assay/logger';
import { TOPICS } from '@assay/contracts';
import { createTestDatabase, eventually, type TestDatabase } from '@assay/testing';
import { activeTraceId } from '@assay/telemetry';
import { enqueueEvent, outboxMigration, outboxTraceparentMigration, PgBus, startOutboxRelay, type OutboxRelay } from '@assay/bus';

// The SDK in this process (what the preload does in a service), with spans kept in memory: the
// trace context must survive the outbox row, the relay and the pg transport's job.
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();

const logger = createSilentLogger();
let testDb: TestDatabase;
let database: Database<any>;
let bus: PgBus;
let relay: OutboxRelay | undefined;

beforeAll(async () => {
  testDb = await createTestDatabase();
  database = createDatabase({ connectionString: testDb.url, schema: 'traced' });
  await migrateToLatest(database, { '20261122000000_outbox': outboxMigration, '20261202100000_outbox_traceparent': outboxTraceparentMigration });
  bus = new PgBus({ connectionString: testDb.url, logger });
  await bus.start();
});

afterAll(async () => {
  await relay?.stop();
  await bus.stop();
  await database.close();
  await testDb.drop();
  await provider.shutdown();
});

describe('trace context across the outbox and the pg bus', () => {
  it('stores the request span with the outbox row and continues it in the relay and the consumer', async () => {
    const seen: Array<{ traceId: string | undefined; id: string }> = [];
    await bus.subscribe({
      topic: TOPICS.orgEvents,
      group: 'traced-consumer',
      handler: async (envelope) => {
        seen.push({ traceId: activeTraceId(), id: envelope.id });
      },
    });

    const tracer = trace.getTracer('test');
    const request = tracer.startSpan('POST /members', { kind: SpanKind.SERVER });
    const written = await context.with(trace.setSpan(context.active(), request), () =>
      database.db.transaction().execute((trx) => enqueueEvent(trx, 'traced', { event: 'organization.member.removed', organization_id: 'org-1', data: { user_id: 'u1' } })),
    );
    request.end();
    const { traceId, spanId } = request.spanContext();

    const row = await database.db.selectFrom('outbox').select(['traceparent']).where('id', '=', written.id).executeTakeFirstOrThrow();
    expect(row.traceparent).toBe(`00-${traceId}-${spanId}-01`);

    relay = startOutboxRelay({ db: database.db, schema: 'traced', bus, logger, intervalMs: 100 });
    await eventually(async () => seen.find((s) => s.id === written.id), 20_000);
    expect(seen.find((s) => s.id === written.id)!.traceId).toBe(traceId);

    const spans = await eventually(async () => {
      const all = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
      return all.some((s) => s.kind === SpanKind.CONSUMER) ? all : undefined;
    });
    const producer = spans.find((s) => s.kind === SpanKind.PRODUCER)!;
    const consumer = spans.find((s) => s.kind === SpanKind.CONSUMER)!;
    expect(producer.name).toBe(`${TOPICS.orgEvents} publish`);
    expect(producer.parentSpanContext?.spanId).toBe(spanId);
    expect(consumer.name).toBe(`${TOPICS.orgEvents} process`);
    expect(consumer.parentSpanContext?.spanId).toBe(producer.spanContext().spanId);
    expect(consumer.attributes['messaging.message.id']).toBe(written.id);
  });

  it('writes no traceparent for an event written outside any span', async () => {
    expect(trace.getActiveSpan()).toBeUndefined();
    const written = await database.db.transaction().execute((trx) => enqueueEvent(trx, 'traced', { event: 'organization.member.removed', organization_id: 'org-1', data: { user_id: 'u2' } }));
    const row = await database.db.selectFrom('outbox').select(['traceparent']).where('id', '=', written.id).executeTakeFirstOrThrow();
    expect(row.traceparent).toBeNull();
    expect(propagation.fields()).toContain('traceparent');
  });
});
