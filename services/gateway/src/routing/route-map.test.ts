import { resolveRoute } from './route-map.js';

describe('the analysis paths of the route map', () => {
  it.each([
    ['GET', '/api/v1/executions/e1/failure-analysis', '/api/v1/executions/e1/failure-analysis'],
    ['GET', '/api/executions/e1/failure-analysis', '/api/v1/executions/e1/failure-analysis'],
    ['POST', '/api/v1/executions/e1/failure-analysis/t1/apply', '/api/v1/executions/e1/failure-analysis/t1/apply'],
    ['POST', '/api/executions/e1/failure-analysis/t1/reject', '/api/v1/executions/e1/failure-analysis/t1/reject'],
    ['GET', '/api/v1/issues', '/api/v1/issues'],
    ['PATCH', '/api/v1/issues/i1', '/api/v1/issues/i1'],
    ['GET', '/api/v1/test-cases/t1/flakiness', '/api/v1/test-cases/t1/flakiness'],
    ['POST', '/api/v1/reports', '/api/v1/reports'],
    ['GET', '/api/v1/reports/r1/snapshots/s1?format=html', '/api/v1/reports/r1/snapshots/s1?format=html'],
  ])('sends %s %s to the analysis service as %s', (method, path, upstream) => {
    expect(resolveRoute(method, path)).toEqual({ service: 'analysis', upstreamPath: upstream, public: false });
  });

  it('leaves the rest of executions and test cases to their services', () => {
    expect(resolveRoute('GET', '/api/v1/executions/e1/results')?.service).toBe('execution-runner');
    expect(resolveRoute('GET', '/api/v1/executions/e1/failure-analysis/t1/other')?.service).toBe('execution-runner');
    expect(resolveRoute('GET', '/api/v1/test-cases/t1')?.service).toBe('test-case');
    expect(resolveRoute('POST', '/api/v1/test-runs/r1/save')?.service).toBe('execution-runner');
  });
});
