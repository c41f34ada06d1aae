import type { Request, Response } from 'express';
import { VIEWPORT } from '@assay/browser';
import { notImplemented, orgPrincipal, serviceRouter, type ServiceRouter, validateBody, validationError } from '@assay/http';
import type { ExecutionContext } from '../context.js';
import { ALLOWED_KEYS, type RecordingEvent, type RecordingInput, type RecordingSession } from './recording.session.js';
import type { RecordingManager } from './recordings.service.js';

const KEEP_ALIVE_MS = 15_000;

function toRecordingBody(m: RecordingManager, s: RecordingSession) {
  return {
    id: s.id,
    project_id: s.projectId,
    base_url: s.baseUrl,
    url: s.ended ? null : s.url,
    status: s.ended ? 'stopped' : 'recording',
    viewport: VIEWPORT,
    steps: s.steps,
    created_at: s.createdAt.toISOString(),
    expires_at: m.expiresAt(s).toISOString(),
    ...(s.ended ? { ended_reason: s.ended } : {}),
  };
}

/** What each input type needs beyond the schema (which checks each field's form). */
const NEEDS: Record<RecordingInput['type'], string[]> = {
  click: ['x', 'y'],
  assert: ['x', 'y', 'mode'],
  pick: ['x', 'y'],
  select: ['x', 'y', 'value'],
  text: ['text'],
  key: ['key'],
  scroll: ['x', 'y', 'delta_y'],
  navigate: ['url'],
  back: [],
  reload: [],
};

function checkInput(body: Record<string, unknown>): RecordingInput {
  const type = body.type as RecordingInput['type'];
  const missing = NEEDS[type].filter((f) => body[f] === undefined).map((f) => ({ field: f, message: `is required for a ${type} input` }));
  if (missing.length) throw validationError(missing);
  if (type === 'key' && !ALLOWED_KEYS.has(body.key as string) && [...(body.key as string)].length !== 1) {
    throw validationError([{ field: 'key', message: `must be one character or one of ${[...ALLOWED_KEYS].join(', ')}` }]);
  }
  return body as unknown as RecordingInput;
}

/**
 * Recordings: a remote browser page the console shows and drives, whose input
 * becomes test steps (see the README, Recorder). They live in this process;
 * without a browser here (`RUNNER_ENABLED=false`) the routes answer 501.
 */
export function recordingRoutes(ctx: ExecutionContext): ServiceRouter<'execution-runner'> {
  const router = serviceRouter('execution-runner');
  const manager = (): RecordingManager => {
    if (!ctx.recordings) throw notImplemented('Recording needs a runner process with a browser (RUNNER_ENABLED=true)');
    return ctx.recordings;
  };

  router.post('/api/v1/recordings', validateBody('RecordingCreateRequest'), async (req, res) => {
    const m = manager();
    const s = await m.open(orgPrincipal(res).org_id, req.body as { project_id: string; environment?: string; start_path?: string });
    res.status(201).location(`/api/v1/recordings/${s.id}`).json(toRecordingBody(m, s));
  });

  router.get('/api/v1/recordings', (_req, res) => {
    const m = manager();
    const data = m.list(orgPrincipal(res).org_id).map((s) => toRecordingBody(m, s));
    res.json({ data });
  });

  router.get('/api/v1/recordings/:id', (req, res) => {
    const m = manager();
    res.json(toRecordingBody(m, m.get(orgPrincipal(res).org_id, String(req.params.id))));
  });

  router.delete('/api/v1/recordings/:id', async (req, res) => {
    const m = manager();
    res.json(toRecordingBody(m, await m.stop(orgPrincipal(res).org_id, String(req.params.id))));
  });

  router.post('/api/v1/recordings/:id/input', validateBody('RecordingInput'), async (req, res) => {
    const m = manager();
    const orgId = orgPrincipal(res).org_id;
    m.get(orgId, String(req.params.id));
    res.json(await m.input(orgId, String(req.params.id), checkInput(req.body as Record<string, unknown>)));
  });

  router.get('/api/v1/recordings/:id/stream', (req: Request, res: Response) => {
    const s = manager().get(orgPrincipal(res).org_id, String(req.params.id));
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    res.write('retry: 2000\n\n');
    let seq = 0;
    // Frames are dropped, never queued, while the client is slow: only the newest matters.
    let pendingFrame: RecordingEvent | undefined;
    const write = (e: RecordingEvent) => res.write(`id: ${++seq}\nevent: ${e.type}\ndata: ${JSON.stringify({ recording_id: s.id, ...e.data })}\n\n`);
    const send = (e: RecordingEvent) => {
      if (e.type === 'frame' && res.writableNeedDrain) {
        pendingFrame = e;
        return;
      }
      write(e);
      if (e.type === 'ended') finish();
    };
    res.on('drain', () => {
      const f = pendingFrame;
      pendingFrame = undefined;
      if (f) write(f);
    });
    const off = s.subscribe(send);
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
    let closed = false;
    function finish() {
      if (closed) return;
      closed = true;
      off();
      clearInterval(keepAlive);
      res.end();
    }
    req.on('close', finish);
    if (s.ended) send({ type: 'ended', data: { reason: s.ended } });
  });

  return router;
}
