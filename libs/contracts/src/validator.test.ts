import { ContractValidator, EVENTS, SCHEMAS, contractValidator } from './index.js';

const validator = new ContractValidator();

describe('ContractValidator', () => {
  it('compiles every schema and every event of the catalog', () => {
    for (const name of Object.keys(SCHEMAS)) expect(() => validator.validate(name, {})).not.toThrow();
    for (const type of Object.keys(EVENTS)) expect(() => validator.validateEventData(type, {})).not.toThrow();
  });

  it('returns no errors for valid data', () => {
    expect(validator.validate('ServiceKeyCreateRequest', { name: 'ci', environment: 'prod', expires_in_days: 90 })).toEqual([]);
    expect(validator.validate('LoginRequest', { email: 'ada@example.com', password: 'correct horse' })).toEqual([]);
    expect(
      validator.validate('ServiceKeyCreated', {
        id: 'k1',
        key: 'service_sk_prod_abc',
        name: 'ci',
        environment: 'prod',
        created_at: '2026-11-22T10:00:00Z',
        expires_at: null,
        last_used: null,
      }),
    ).toEqual([]);
  });

  it('names a missing field as required', () => {
    expect(validator.validate('ServiceKeyCreateRequest', { environment: 'dev' })).toEqual([{ field: 'name', message: 'is required' }]);
  });

  it('names an unknown field', () => {
    expect(validator.validate('ServiceKeyCreateRequest', { name: 'ci', environment: 'dev', owner: 'me' })).toEqual([
      { field: 'owner', message: 'is not a known field' },
    ]);
  });

  it('lists the allowed values of an enum', () => {
    expect(validator.validate('ServiceKeyCreateRequest', { name: 'ci', environment: 'staging' })).toEqual([
      { field: 'environment', message: 'must be one of prod, dev' },
    ]);
  });

  it('reports every error at once', () => {
    const errors = validator.validate('ServiceKeyCreateRequest', { environment: 'staging', expires_in_days: 4000, extra: true });
    expect(errors).toEqual(
      expect.arrayContaining([
        { field: 'name', message: 'is required' },
        { field: 'extra', message: 'is not a known field' },
        { field: 'environment', message: 'must be one of prod, dev' },
        { field: 'expires_in_days', message: 'must be <= 3650' },
      ]),
    );
    expect(errors).toHaveLength(4);
  });

  it('checks string formats such as email and date-time', () => {
    expect(validator.validate('LoginRequest', { email: 'not-an-email', password: 'x' })).toEqual([
      { field: 'email', message: 'must match format "email"' },
    ]);
    expect(validator.validate('LoginResponse', { token: 't', expires_at: 'tomorrow' })).toEqual([
      { field: 'expires_at', message: 'must match format "date-time"' },
    ]);
  });

  it('checks lengths and types with readable messages', () => {
    expect(validator.validate('LoginRequest', { email: 'ada@example.com', password: '' })).toEqual([
      { field: 'password', message: 'must NOT have fewer than 1 characters' },
    ]);
    expect(validator.validate('ServiceKeyCreateRequest', { name: 'ci', environment: 'dev', expires_in_days: '30' })).toEqual([
      { field: 'expires_in_days', message: 'must be integer' },
    ]);
  });

  it('names the whole body when the body has the wrong type', () => {
    expect(validator.validate('LoginRequest', 'ada@example.com')).toEqual([{ field: 'body', message: 'must be object' }]);
    expect(validator.validate('LoginRequest', null)).toEqual([{ field: 'body', message: 'must be object' }]);
  });

  it('names nested fields with dotted paths, array indexes included', () => {
    const errors = validator.validate('UsageReport', {
      usage: [
        { key_id: '6f1c1d2e-8a43-4d0e-9a47-1f0b0c7e2a11', count: 3, last_used: '2026-11-22T10:00:00Z' },
        { key_id: 'not-a-uuid', count: 0, extra: 1 },
      ],
    });
    expect(errors).toEqual(
      expect.arrayContaining([
        { field: 'usage.1.last_used', message: 'is required' },
        { field: 'usage.1.extra', message: 'is not a known field' },
        { field: 'usage.1.key_id', message: 'must match format "uuid"' },
        { field: 'usage.1.count', message: 'must be >= 1' },
      ]),
    );
    expect(errors).toHaveLength(4);
  });

  it('follows $ref into other named schemas', () => {
    expect(validator.validate('ServiceKeyList', { keys: [{ id: 'k1', name: 'ci', environment: 'qa' }] })).toEqual(
      expect.arrayContaining([
        { field: 'keys.0.created_at', message: 'is required' },
        { field: 'keys.0.usage_count', message: 'is required' },
        { field: 'keys.0.environment', message: 'must be one of prod, dev' },
      ]),
    );
    expect(
      validator.validate('MemberList', { data: [], pagination: { limit: 10, offset: -1, total: 0 } }),
    ).toEqual([{ field: 'pagination.offset', message: 'must be >= 0' }]);
  });

  it('refuses duplicate and unknown API key scopes', () => {
    expect(validator.validate('ApiKeyCreateRequest', { name: 'ci', scopes: ['projects:read', 'projects:read'] })).toEqual([
      { field: 'scopes', message: 'must NOT have duplicate items (items ## 1 and 0 are identical)' },
    ]);
    const unknown = validator.validate('ApiKeyCreateRequest', { name: 'ci', scopes: ['projects:delete'] });
    expect(unknown).toHaveLength(1);
    expect(unknown[0]!.field).toBe('scopes.0');
    expect(unknown[0]!.message).toMatch(/^must be one of projects:read, projects:write, .*webhooks:manage$/);
    expect(validator.validate('ApiKeyCreateRequest', { name: 'ci', scopes: [] })).toEqual([]);
  });

  it('throws for a schema name it does not know', () => {
    expect(() => validator.validate('NoSuchSchema', {})).toThrow('Unknown schema "NoSuchSchema"');
  });

  it('validates event data against the event catalog', () => {
    expect(validator.validateEventData('auth.key.revoked', { key_id: 'k1', kind: 'api_key' })).toEqual([]);
    expect(validator.validateEventData('auth.key.revoked', { kind: 'password' })).toEqual([
      { field: 'key_id', message: 'is required' },
      { field: 'kind', message: 'must be one of service_key, api_key' },
    ]);
    expect(validator.validateEventData('organization.member.added', { user: { id: 'u1', email: 'a@b.c' }, role: 'admin' })).toEqual([
      { field: 'user.name', message: 'is required' },
    ]);
    expect(() => validator.validateEventData('no.such.event', {})).toThrow('Unknown schema "event:no.such.event"');
  });

  it('works with a catalog of its own, refs included', () => {
    const own = new ContractValidator({
      Point: { type: 'object', required: ['x'], properties: { x: { type: 'number' } }, additionalProperties: false },
      Line: { type: 'object', required: ['from', 'to'], properties: { from: { $ref: 'Point' }, to: { $ref: 'Point' } } },
    });
    expect(own.validate('Line', { from: { x: 1 }, to: { x: 2 } })).toEqual([]);
    expect(own.validate('Line', { from: { x: 'a' }, to: { y: 2 } })).toEqual([
      { field: 'from.x', message: 'must be number' },
      { field: 'to.x', message: 'is required' },
      { field: 'to.y', message: 'is not a known field' },
    ]);
    expect(() => own.validate('LoginRequest', {})).toThrow('Unknown schema "LoginRequest"');
  });

  it('gives the same validator to every caller of contractValidator()', () => {
    expect(contractValidator()).toBe(contractValidator());
    expect(contractValidator()).toBeInstanceOf(ContractValidator);
  });
});
