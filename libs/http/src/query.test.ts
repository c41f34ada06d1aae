import { AppError } from './errors.js';
import { queryBoolean, queryOneOf, queryString, requiredQueryString } from './query.js';

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return { status: err.status, details: err.details };
    throw err;
  }
  throw new Error('not refused');
};

describe('query parameter readers', () => {
  it('read one value, and take an empty one as absent', () => {
    expect(queryString({ q: 'shoes' }, 'q')).toBe('shoes');
    expect(queryString({ q: '' }, 'q')).toBeUndefined();
    expect(queryString({}, 'q')).toBeUndefined();
    expect(requiredQueryString({ project_id: 'p' }, 'project_id')).toBe('p');
    expect(queryBoolean({ soft: '0' }, 'soft', true)).toBe(false);
    expect(queryBoolean({}, 'soft', true)).toBe(true);
    expect(queryOneOf({ status: 'failed' }, 'status', ['passed', 'failed'])).toBe('failed');
    expect(queryOneOf({ status: '' }, 'status', ['passed', 'failed'])).toBeUndefined();
  });

  it('refuse a repeated, over-long or NUL-holding value with 400 naming the parameter', () => {
    expect(refusal(() => queryString({ q: ['a', 'b'] }, 'q'))).toEqual({ status: 400, details: [{ field: 'q', message: 'must be given once' }] });
    expect(refusal(() => queryString({ q: 'x'.repeat(11) }, 'q', 10))).toEqual({ status: 400, details: [{ field: 'q', message: 'must be at most 10 characters' }] });
    expect(refusal(() => queryString({ q: 'a\u0000' }, 'q'))).toEqual({ status: 400, details: [{ field: 'q', message: 'must not contain NUL characters' }] });
    expect(refusal(() => requiredQueryString({ project_id: '' }, 'project_id'))).toEqual({ status: 400, details: [{ field: 'project_id', message: 'is required' }] });
    expect(refusal(() => queryBoolean({ soft: 'yes' }, 'soft', true))).toEqual({ status: 400, details: [{ field: 'soft', message: 'must be true or false' }] });
    expect(refusal(() => queryOneOf({ status: 'done' }, 'status', ['passed', 'failed']))).toEqual({ status: 400, details: [{ field: 'status', message: 'must be one of passed, failed' }] });
    expect(refusal(() => queryOneOf({ status: ['passed', 'failed'] }, 'status', ['passed', 'failed']))).toMatchObject({ status: 400 });
  });
});
