import type { Request, Response } from 'express';

export interface StreamedEvent {
  seq: number | string;
  type: string;
  data: unknown;
}

export interface EventStreamOptions {
  /** Events after `afterSeq`, oldest first, at most `batch` of them. */
  read(afterSeq: number): Promise<StreamedEvent[]>;
  /** Calls `wake` when new events may exist; returns the unsubscribe function. */
  subscribe(wake: () => void): () => void;
  /** The last event the stream sends (it ends after it). */
  isLast(event: StreamedEvent): boolean;
  /** The data line of an event (JSON). */
  format?(event: StreamedEvent): unknown;
  onError?(err: unknown): void;
  keepAliveMs?: number;
  batch?: number;
}

/**
 * Serves a replayable Server-Sent Events stream: every event after the
 * client's `Last-Event-ID` (header or `last_event_id` query), then new ones as
 * `subscribe` announces them, with keep-alive comments, until the last event.
 * Event ids are the sequence numbers, so a reconnect misses nothing.
 */
export async function serveEventStream(req: Request, res: Response, opts: EventStreamOptions): Promise<void> {
  const batch = opts.batch ?? 500;
  const fromHeader = req.header('last-event-id') ?? (typeof req.query.last_event_id === 'string' ? req.query.last_event_id : undefined);
  let lastSeq = fromHeader && /^\d{1,15}$/.test(fromHeader) ? Number(fromHeader) : 0;
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  res.write('retry: 2000\n\n');
  let closed = false;
  let reading = false;
  let again = false;
  const finish = () => {
    if (closed) return;
    closed = true;
    off();
    clearInterval(keepAlive);
    res.end();
  };
  const pump = async (): Promise<void> => {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        for (;;) {
          const events = await opts.read(lastSeq);
          for (const e of events) {
            if (closed) return;
            res.write(`id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(opts.format ? opts.format(e) : e.data)}\n\n`);
            lastSeq = Number(e.seq);
            if (opts.isLast(e)) return finish();
          }
          if (events.length < batch) break;
        }
      } while (again && !closed);
    } catch (err) {
      opts.onError?.(err);
      finish();
    } finally {
      reading = false;
    }
  };
  const off = opts.subscribe(() => void pump());
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), opts.keepAliveMs ?? 15_000);
  req.on('close', finish);
  await pump();
}
