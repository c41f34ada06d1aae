/**
 * API endpoints templated by structure. Ids are templated per call already
 * (`templateEndpoint`: numbers, UUIDs, long hex and mixed tokens become
 * `{id}`); here, three or more sibling paths that differ only in one segment
 * (`/api/stock/storm-lamp`, `/api/stock/cedar-stool`, `/api/stock/clay-mug`)
 * become one endpoint, `/api/stock/{slug}`, with their calls counted together.
 */

/** One stored row: a method and an id-templated path, its calls and their timings. */
export interface EndpointRow {
  method: string;
  endpoint: string;
  status_code: number;
  calls: number;
  response_times_ms: number[];
}

export interface TemplatedEndpoint {
  method: string;
  endpoint: string;
  /** The median call's (the spec's one timing). */
  response_time_ms: number;
  /** The status most of its calls answered (the higher one on a tie). */
  status_code: number;
  calls: number;
  min_response_time_ms: number;
  median_response_time_ms: number;
  max_response_time_ms: number;
  /** How many distinct paths it stands for (1 unless templated by structure). */
  paths: number;
}

/** Siblings needed before a segment is templated. */
export const MIN_SIBLINGS = 3;

/** Segments naming an API's root or version, not a collection: `/api/{slug}` would merge unrelated resources. */
const ROOT_SEGMENT = /^(api|rest|v\d+(\.\d+)?|graphql|public|internal)$/i;
const PLACEHOLDER = /^\{[a-z]+\}$/;

interface Group {
  method: string;
  segments: string[];
  /** Status code → calls. */
  statuses: Map<number, number>;
  calls: number;
  times: number[];
  paths: number;
}

/**
 * The path's segments, a scoped name kept as one (`/sidebar/@acme/ui-kit` →
 * `['', 'sidebar', '@acme/ui-kit']`), so a scoped item is a sibling of an
 * unscoped one, as it is when the client encodes it (`%40acme%2Fui-kit`).
 */
export function segmentsOf(endpoint: string): string[] {
  const raw = endpoint.split('/');
  const out: string[] = [];
  for (let i = 0; i < raw.length; i++) {
    const seg = raw[i]!;
    if (seg.length > 1 && seg.startsWith('@') && i + 1 < raw.length && raw[i + 1] !== '') out.push(`${seg}/${raw[++i]}`);
    else out.push(seg);
  }
  return out;
}

const keyWithout = (g: Group, i: number) => `${g.method} ${g.segments.length} ${i} ${g.segments.map((s, j) => (j === i ? '\u0000' : s)).join('/')}`;

/**
 * Merges sibling endpoints: for one method and path length, paths that agree
 * on every segment but position i, with at least MIN_SIBLINGS distinct
 * literal values there, become one path with `{slug}` at i. A position is
 * templated only under a named collection (some segment before it that is not
 * an API root or version, so `/api/stock/{slug}` but never `/api/{slug}`).
 * The largest sibling set merges first, and merging repeats until nothing
 * changes (a later segment can vary too: `/shops/{slug}/items/{slug}`).
 */
export function templateSiblings(rows: EndpointRow[]): TemplatedEndpoint[] {
  let groups: Group[] = rows.map((r) => ({
    method: r.method,
    segments: segmentsOf(r.endpoint),
    statuses: new Map([[r.status_code, r.calls]]),
    calls: r.calls,
    times: r.response_times_ms.length ? [...r.response_times_ms] : [0],
    paths: 1,
  }));
  for (;;) {
    const sets = new Map<string, { i: number; members: Group[] }>();
    for (const g of groups)
      g.segments.forEach((seg, i) => {
        if (i === 0 || seg === '' || PLACEHOLDER.test(seg)) return;
        if (!g.segments.slice(1, i).some((s) => s !== '' && !ROOT_SEGMENT.test(s) && !PLACEHOLDER.test(s))) return;
        const k = keyWithout(g, i);
        const set = sets.get(k) ?? { i, members: [] };
        set.members.push(g);
        sets.set(k, set);
      });
    const best = [...sets.values()].filter((s) => s.members.length >= MIN_SIBLINGS).sort((a, b) => b.members.length - a.members.length)[0];
    if (!best) break;
    const merged: Group = {
      method: best.members[0]!.method,
      segments: best.members[0]!.segments.map((s, j) => (j === best.i ? '{slug}' : s)),
      statuses: new Map(),
      calls: 0,
      times: [],
      paths: 0,
    };
    for (const m of best.members) {
      for (const [status, n] of m.statuses) merged.statuses.set(status, (merged.statuses.get(status) ?? 0) + n);
      merged.calls += m.calls;
      merged.times.push(...m.times);
      merged.paths += m.paths;
    }
    const gone = new Set(best.members);
    groups = [...groups.filter((g) => !gone.has(g)), merged];
  }
  return groups
    .map((g): TemplatedEndpoint => {
      const times = [...g.times].sort((a, b) => a - b);
      const median = times[Math.floor((times.length - 1) / 2)]!;
      const status = [...g.statuses].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0]![0];
      return {
        method: g.method,
        endpoint: g.segments.join('/'),
        response_time_ms: median,
        status_code: status,
        calls: g.calls,
        min_response_time_ms: times[0]!,
        median_response_time_ms: median,
        max_response_time_ms: times[times.length - 1]!,
        paths: g.paths,
      };
    })
    .sort((a, b) => (a.endpoint < b.endpoint ? -1 : a.endpoint > b.endpoint ? 1 : a.method < b.method ? -1 : a.method > b.method ? 1 : 0));
}
