import { templateSiblings, type EndpointRow } from './endpoints.js';

const row = (method: string, endpoint: string, times: number[], status_code = 200): EndpointRow => ({ method, endpoint, status_code, calls: times.length, response_times_ms: times });

describe('templateSiblings', () => {
  it('merges three sibling paths that differ in one segment into a {slug} endpoint with their calls and min/median/max', () => {
    const out = templateSiblings([
      row('GET', '/api/stock/storm-lamp', [10, 40]),
      row('GET', '/api/stock/cedar-stool', [20]),
      row('GET', '/api/stock/clay-mug', [30, 50]),
      row('GET', '/api/products', [5]),
    ]);
    expect(out).toEqual([
      { method: 'GET', endpoint: '/api/products', response_time_ms: 5, status_code: 200, calls: 1, min_response_time_ms: 5, median_response_time_ms: 5, max_response_time_ms: 5, paths: 1 },
      { method: 'GET', endpoint: '/api/stock/{slug}', response_time_ms: 30, status_code: 200, calls: 5, min_response_time_ms: 10, median_response_time_ms: 30, max_response_time_ms: 50, paths: 3 },
    ]);
  });

  it('leaves two siblings alone, and keeps methods apart', () => {
    const out = templateSiblings([row('GET', '/api/stock/a-b', [1]), row('GET', '/api/stock/c-d', [1]), row('DELETE', '/api/stock/e-f', [1])]);
    expect(out.map((e) => `${e.method} ${e.endpoint}`)).toEqual(['GET /api/stock/a-b', 'GET /api/stock/c-d', 'DELETE /api/stock/e-f']);
  });

  it('keeps {id} endpoints as they are and does not fold them into a slug', () => {
    const out = templateSiblings([row('GET', '/api/products/{id}', [3, 4]), row('GET', '/api/products/featured', [1]), row('GET', '/api/products/new', [1])]);
    expect(out.map((e) => e.endpoint)).toEqual(['/api/products/featured', '/api/products/new', '/api/products/{id}']);
  });

  it('never templates the segment right under an API root or version: /api/stock, /api/cart and /api/users stay apart', () => {
    const out = templateSiblings([row('GET', '/api/stock', [1]), row('GET', '/api/cart', [1]), row('GET', '/api/users', [1]), row('GET', '/api/v2/a', [1]), row('GET', '/api/v2/b', [1]), row('GET', '/api/v2/c', [1])]);
    expect(out.map((e) => e.endpoint).sort()).toEqual(['/api/cart', '/api/stock', '/api/users', '/api/v2/a', '/api/v2/b', '/api/v2/c']);
  });

  it('templates a middle segment and then a later one: /shops/{slug}/items/{slug}', () => {
    const rows = ['north', 'south', 'east'].flatMap((shop) => ['lamp-a', 'lamp-b', 'lamp-c'].map((item) => row('GET', `/shops/${shop}/items/${item}`, [7])));
    const out = templateSiblings(rows);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ endpoint: '/shops/{slug}/items/{slug}', calls: 9, paths: 9, min_response_time_ms: 7, max_response_time_ms: 7 });
  });

  it('reports the status most calls answered', () => {
    const out = templateSiblings([row('POST', '/api/stock/a-a', [1, 1], 201), row('POST', '/api/stock/b-b', [1], 409), row('POST', '/api/stock/c-c', [1, 1], 201)]);
    expect(out).toEqual([expect.objectContaining({ endpoint: '/api/stock/{slug}', status_code: 201, calls: 5 })]);
  });
});

describe('templateSiblings on single-page apps', () => {
  it('counts a scoped name as one segment, so scoped and plain items are siblings', () => {
    const out = templateSiblings([
      row('GET', '/-/data/sidebar/@acme/ui-kit', [5]),
      row('GET', '/-/data/sidebar/@acme/widgets', [6]),
      row('GET', '/-/data/sidebar/left-pad-lite', [7]),
      row('GET', '/-/data/sidebar/tiny-router', [8]),
    ]);
    expect(out).toEqual([expect.objectContaining({ endpoint: '/-/data/sidebar/{slug}', calls: 4, paths: 4 })]);
  });

  it('folds names encoded into one segment (%40scope%2Fname) like any other', () => {
    const out = templateSiblings(['%40shop%2Flamp', '%40shop%2Fstool', 'mug'].map((n) => row('GET', `/api/reviews/${n}`, [1])));
    expect(out.map((e) => [e.endpoint, e.paths])).toEqual([['/api/reviews/{slug}', 3]]);
  });
});
