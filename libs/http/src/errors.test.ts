import {
  AppError,
  ERROR_STATUS,
  MESSAGES,
  conflict,
  forbidden,
  invalidApiKey,
  notFound,
  notImplemented,
  parsePagination,
  serviceUnavailable,
  validationError,
} from './index.js';

describe('the error catalogue', () => {
  it('gives each code of DESIGN.md its one status, and an error its status from its code', () => {
    expect(ERROR_STATUS).toEqual({
      validation_error: 400,
      invalid_api_key: 401,
      insufficient_permissions: 403,
      not_found: 404,
      conflict: 409,
      payload_too_large: 413,
      unsupported_media_type: 415,
      rate_limit_exceeded: 429,
      internal_server_error: 500,
      not_implemented: 501,
      service_unavailable: 503,
    });
    for (const [code, status] of Object.entries(ERROR_STATUS)) expect(new AppError(code as keyof typeof ERROR_STATUS, 'x').status).toBe(status);
    expect(new AppError('validation_error', 'Request could not be read', undefined, undefined, 416).status).toBe(416);
  });
});

describe('AppError', () => {
  it('is an Error with its status, code and message', () => {
    const err = new AppError('conflict', 'Name taken');
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('AppError');
    expect({ status: err.status, code: err.code, message: err.message }).toEqual({ status: 409, code: 'conflict', message: 'Name taken' });
  });

  it('leaves details out of the body when there are none', () => {
    expect(new AppError('not_found', 'Gone').toBody()).toEqual({ error: 'not_found', message: 'Gone' });
  });

  it('puts details and extra fields in the body', () => {
    expect(new AppError('rate_limit_exceeded', 'Slow down', { window: '1m' }, { retry_after: 3 }).toBody()).toEqual({
      error: 'rate_limit_exceeded',
      message: 'Slow down',
      details: { window: '1m' },
      retry_after: 3,
    });
  });

  it('keeps falsy details such as an empty list', () => {
    expect(new AppError('validation_error', 'Bad', []).toBody()).toEqual({ error: 'validation_error', message: 'Bad', details: [] });
  });
});

describe('error helpers', () => {
  it('build the statuses and codes of DESIGN.md with the spec messages', () => {
    expect(invalidApiKey().toBody()).toEqual({ error: 'invalid_api_key', message: MESSAGES.invalidApiKey });
    expect(invalidApiKey().status).toBe(401);
    expect(forbidden().toBody()).toEqual({ error: 'insufficient_permissions', message: 'plan lacks access to the resource' });
    expect(forbidden().status).toBe(403);
    expect(notFound('Test case').toBody()).toEqual({ error: 'not_found', message: 'Test case not found' });
    expect(notFound().message).toBe('Resource not found');
    expect(conflict('Already archived', { id: 'tc_1' }).toBody()).toEqual({ error: 'conflict', message: 'Already archived', details: { id: 'tc_1' } });
    expect([notImplemented('later').status, notImplemented('later').code]).toEqual([501, 'not_implemented']);
    expect([serviceUnavailable('auth is down').status, serviceUnavailable('auth is down').code]).toEqual([503, 'service_unavailable']);
  });

  it('summarises up to three failing fields in a validation error message', () => {
    const err = validationError([
      { field: 'a', message: 'is required' },
      { field: 'b', message: 'must be integer' },
      { field: 'c', message: 'is not a known field' },
      { field: 'd', message: 'is required' },
    ]);
    expect(err.status).toBe(400);
    expect(err.message).toBe('Invalid request: a is required; b must be integer; c is not a known field');
    expect(err.toBody().details).toHaveLength(4);
  });

  it('uses a given message or a generic one when no field is named', () => {
    expect(validationError([]).message).toBe('Request is invalid');
    expect(validationError([{ field: 'x', message: 'bad' }], 'Custom').message).toBe('Custom');
  });
});

describe('parsePagination', () => {
  const opts = { defaultLimit: 20, maxLimit: 100 };

  it('applies the defaults to an empty query and to empty values', () => {
    expect(parsePagination({}, opts)).toEqual({ limit: 20, offset: 0 });
    expect(parsePagination({ limit: '', offset: '' }, opts)).toEqual({ limit: 20, offset: 0 });
  });

  it('reads values on the bounds', () => {
    expect(parsePagination({ limit: '1', offset: '0' }, opts)).toEqual({ limit: 1, offset: 0 });
    expect(parsePagination({ limit: '100', offset: '100000' }, opts)).toEqual({ limit: 100, offset: 100000 });
  });

  it('throws a 400 naming every bad parameter', () => {
    let caught: unknown;
    try {
      parsePagination({ limit: '101', offset: '-5' }, opts);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).toBody()).toEqual({
      error: 'validation_error',
      message: `Invalid request: limit must be between 1 and 100; offset must be between 0 and ${Number.MAX_SAFE_INTEGER}`,
      details: [
        { field: 'limit', message: 'must be between 1 and 100' },
        { field: 'offset', message: `must be between 0 and ${Number.MAX_SAFE_INTEGER}` },
      ],
    });
  });

  it('refuses values that are not strings of digits', () => {
    for (const limit of ['abc', '1.0', ' 5', '+5', '0x10', ['5'], 5]) {
      expect(() => parsePagination({ limit }, opts)).toThrow('Invalid request: limit must be an integer');
    }
  });
});
