import { sql, type Kysely } from 'kysely';
import { planLimits } from '@assay/contracts';
import type { ExecutionDatabase } from '../db/database.js';

type Db = Kysely<ExecutionDatabase>;

/** Days a run's screenshots and traces are kept: the plan's history period (the spec names it for webhook delivery history). */
export const historyDays = (plan: string): number => planLimits(plan).webhooks.historyDays;

/** The periods by paid plan, for messages. */
export const HISTORY_DAYS = { starter: historyDays('starter'), growth: historyDays('growth'), pro: historyDays('pro') };

export interface ArtifactLimits {
  /** Largest single artifact (ARTIFACT_MAX_BYTES). */
  maxBytes: number;
  /** Bytes one organization may keep stored at once (ARTIFACT_ORG_QUOTA_BYTES). */
  orgQuotaBytes: number;
}

/** Why an artifact was not stored: said to the user in the step, the result or the upload's answer. */
export class ArtifactRefusedError extends Error {
  constructor(
    message: string,
    /** Which cap refused it: one artifact's size, or the organization's storage. */
    readonly cap: 'size' | 'quota',
  ) {
    super(message);
    this.name = 'ArtifactRefusedError';
  }
}

/** 512 KB, 1.5 MB, 50 MB. */
export const megabytes = (n: number) => (n < 1_048_576 ? `${Math.ceil(n / 1024)} KB` : `${(n / 1_048_576).toFixed(n < 10_485_760 ? 1 : 0)} MB`);

export interface NewArtifact {
  org_id: string;
  /** Null for an uploaded file, which belongs to no run. */
  execution_id: string | null;
  kind: 'screenshot' | 'trace' | 'upload' | 'baseline' | 'attachment';
  content_type: string;
  data: Buffer;
  filename?: string;
  /** Days to keep it (the execution's history_days); null: until deleted. */
  keep_days: number | null;
}

/**
 * Stores an artifact within the limits: the organization's byte count rises
 * in the same transaction, only while it stays within the quota (one
 * statement, so concurrent runs cannot both pass it).
 * @throws ArtifactRefusedError naming the cap that refused it.
 */
export async function storeArtifact(db: Db, limits: ArtifactLimits, a: NewArtifact): Promise<string> {
  if (a.data.length > limits.maxBytes) throw tooLarge(a, limits);
  return db.transaction().execute((trx) => insertArtifact(trx, limits, a));
}

const tooLarge = (a: NewArtifact, limits: ArtifactLimits) =>
  new ArtifactRefusedError(`the ${a.kind === 'upload' ? 'file' : a.kind} (${megabytes(a.data.length)}) is larger than the ${megabytes(limits.maxBytes)} allowed per artifact`, 'size');

/**
 * storeArtifact inside a transaction the caller holds (a baseline is stored
 * with its row): the quota is counted by the same statement.
 * @throws ArtifactRefusedError naming the cap that refused it.
 */
export async function insertArtifact(trx: Db, limits: ArtifactLimits, a: NewArtifact): Promise<string> {
  const size = a.data.length;
  if (size > limits.maxBytes) throw tooLarge(a, limits);
  const counted = await sql<{ bytes: string }>`
    insert into artifact_usage (org_id, bytes) values (${a.org_id}, ${size})
    on conflict (org_id) do update set bytes = artifact_usage.bytes + excluded.bytes
      where artifact_usage.bytes + excluded.bytes <= ${limits.orgQuotaBytes}
    returning bytes`.execute(trx);
  if (counted.rows.length === 0 || size > limits.orgQuotaBytes) {
    throw new ArtifactRefusedError(`the organization's artifact storage (${megabytes(limits.orgQuotaBytes)}) is full: older screenshots and traces expire after the plan's history period`, 'quota');
  }
  const row = await trx
    .insertInto('artifacts')
    .values({
      org_id: a.org_id,
      execution_id: a.execution_id,
      kind: a.kind,
      content_type: a.content_type,
      data: a.data,
      size,
      filename: a.filename ?? null,
      expires_at: a.keep_days === null ? null : sql<Date>`now() + make_interval(days => ${a.keep_days})`,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Deletes one artifact of the organization and gives its bytes back to the quota (in the caller's transaction). */
export async function deleteArtifact(trx: Db, orgId: string, id: string): Promise<void> {
  const gone = await trx.deleteFrom('artifacts').where('org_id', '=', orgId).where('id', '=', id).returning('size').executeTakeFirst();
  if (gone) await sql`update artifact_usage set bytes = greatest(0, bytes - ${gone.size}) where org_id = ${orgId}`.execute(trx);
}

/** An artifact of the organization that has not expired. */
export async function findArtifact(db: Db, orgId: string, id: string) {
  return db
    .selectFrom('artifacts')
    .select(['id', 'content_type', 'data', 'kind', 'filename', 'size', 'created_at'])
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
    .executeTakeFirst();
}

/** An uploaded file of the organization (never another organization's, never a screenshot or trace). */
export async function findUpload(db: Db, orgId: string, id: string): Promise<{ filename: string; content_type: string; data: Buffer } | undefined> {
  const row = await findArtifact(db, orgId, id);
  return row?.kind === 'upload' ? { filename: row.filename ?? 'upload.bin', content_type: row.content_type, data: row.data } : undefined;
}

/** Deletes up to `batch` expired artifacts and gives their bytes back to their organizations; the number deleted. */
export async function purgeExpiredArtifacts(db: Db, batch = 1000): Promise<number> {
  const r = await sql<{ n: number }>`
    with gone as (
      delete from artifacts where id in (select id from artifacts where expires_at is not null and expires_at <= now() limit ${batch})
      returning org_id, size
    ), per_org as (
      select org_id, sum(size) as bytes, count(*) as n from gone group by org_id
    ), freed as (
      update artifact_usage u set bytes = greatest(0, u.bytes - p.bytes) from per_org p where u.org_id = p.org_id returning 1
    )
    select coalesce(sum(n), 0)::int as n from per_org`.execute(db);
  return r.rows[0]?.n ?? 0;
}

/** When a stored artifact was created (it exists: its id was just returned by storeArtifact). */
export async function artifactCreatedAt(db: Db, id: string): Promise<Date> {
  const row = await db.selectFrom('artifacts').select('created_at').where('id', '=', id).executeTakeFirstOrThrow();
  return row.created_at;
}
