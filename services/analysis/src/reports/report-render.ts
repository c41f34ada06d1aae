import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { ReportTable } from './report-data.js';
import type { ReportData } from './reports.service.js';

const escapeHtml = (v: unknown) =>
  String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** RFC 4180 CSV of one table (fields quoted when they hold a comma, quote or line break; a leading = + - @ is quoted against formula injection). */
export function toCsv(table: ReportTable): string {
  const field = (v: string | number | null) => {
    const s = v === null ? '' : String(v);
    return /[",\r\n]/.test(s) || /^[=+\-@]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [table.columns, ...table.rows].map((r) => r.map(field).join(',')).join('\r\n') + '\r\n';
}

const records = (t: ReportTable) => t.rows.map((r) => Object.fromEntries(t.columns.map((c, i) => [c, r[i]])));

/** The Vega-Lite chart of a report's data (its data inline: nothing is loaded). */
export function chartSpec(data: ReportData): TopLevelSpec | undefined {
  const bar = (values: Array<Record<string, unknown>>, x: string, y: string, title: string, xTitle: string): TopLevelSpec => ({
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title,
    width: 560,
    data: { values },
    mark: 'bar',
    encoding: { y: { field: y, type: 'nominal', sort: '-x', title: null, axis: { labelLimit: 260 } }, x: { field: x, type: 'quantitative', title: xTitle } },
  });
  switch (data.kind) {
    case 'pass_rate': {
      const values = records(data.tables.by_day!).map((r) => ({ ...r, series: `${r.test_plan_name}${r.environment ? ` (${r.environment})` : ''}` }));
      if (!values.length) return undefined;
      return {
        $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
        title: 'Pass rate by day',
        width: 560,
        height: 260,
        data: { values },
        mark: { type: 'line', point: true },
        encoding: {
          x: { field: 'day', type: 'temporal', title: 'Day', timeUnit: 'utcyearmonthdate' },
          y: { field: 'pass_rate', type: 'quantitative', title: 'Pass rate (%)', scale: { domain: [0, 100] } },
          color: { field: 'series', type: 'nominal', title: 'Plan (environment)' },
        },
      };
    }
    case 'flaky_tests': {
      const values = records(data.tables.tests!).slice(0, 20);
      return values.length ? bar(values, 'flip_rate', 'test_name', 'Flip rate by test', 'Flip rate (%)') : undefined;
    }
    case 'slowest_steps': {
      const values = records(data.tables.steps!).slice(0, 20).map((r) => ({ ...r, step: `${r.action} ${r.selector}`.trim() }));
      return values.length ? bar(values, 'p95_ms', 'step', 'Slowest steps (p95)', 'p95 duration (ms)') : undefined;
    }
    case 'failure_categories': {
      const values = records(data.tables.categories!);
      return values.length ? bar(values, 'failures', 'category', 'Failures by category', 'Failures') : undefined;
    }
    case 'open_issues': {
      const values = records(data.tables.issues!).slice(0, 20);
      return values.length ? bar(values, 'occurrences', 'title', 'Open issues by occurrences', 'Occurrences') : undefined;
    }
  }
}

/** The chart as SVG, rendered on the server by Vega (no browser, no script in the page). */
export async function chartSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** A self-contained page: title, period, the chart as inline SVG and every table; no script, no external resource. */
export async function toHtml(title: string, createdAt: string, data: ReportData): Promise<string> {
  const spec = chartSpec(data);
  const svg = spec ? await chartSvg(spec) : '<p>No data in this period.</p>';
  const tables = Object.entries(data.tables)
    .map(
      ([name, t]) => `<h2>${escapeHtml(name.replace(/_/g, ' '))}</h2>
<table><thead><tr>${t.columns.map((c) => `<th>${escapeHtml(c)}</th>`).join('')}</tr></thead>
<tbody>${t.rows.map((r) => `<tr>${r.map((v) => `<td>${escapeHtml(v)}</td>`).join('')}</tr>`).join('\n')}</tbody></table>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:8px 0 24px}th,td{border:1px solid #ccc;padding:4px 8px;text-align:left}th{background:#f3f3f3}.meta{color:#666}</style>
</head><body>
<h1>${escapeHtml(title)}</h1>
<p class="meta">${escapeHtml(data.kind.replace(/_/g, ' '))} · ${escapeHtml(data.period.from)} to ${escapeHtml(data.period.to)} · ${data.executions_counted} executions · snapshot of ${escapeHtml(createdAt)}</p>
<figure>${svg}</figure>
${tables}
</body></html>
`;
}
