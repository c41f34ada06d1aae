import { SECRET_MASK, SecretMasker, secretReferences } from './secrets.js';

describe('SecretMasker', () => {
  const m = new SecretMasker(['p@ss w"rd&1', 'token-1234']);

  it('masks a secret as typed, JSON-escaped, URL- and form-encoded and HTML-escaped', () => {
    expect(m.text('Expected "p@ss w"rd&1" but found "x"')).toBe(`Expected "${SECRET_MASK}" but found "x"`);
    expect(m.text('{"value":"p@ss w\\"rd&1"}')).toBe(`{"value":"${SECRET_MASK}"}`);
    expect(m.text('/search?q=p%40ss%20w%22rd%261')).toBe(`/search?q=${SECRET_MASK}`);
    expect(m.text('q=p%40ss+w%22rd%261&x=1')).toBe(`q=${SECRET_MASK}&x=1`);
    expect(m.text('<input value="p@ss w&quot;rd&amp;1">')).toBe(`<input value="${SECRET_MASK}">`);
  });

  it('masks every string of JSON-like data and every occurrence in bytes, leaving other data alone', () => {
    expect(m.deep({ a: ['token-1234', 3, null], 'token-1234': { b: 'xtoken-1234y' } })).toEqual({ a: [SECRET_MASK, 3, null], [SECRET_MASK]: { b: `x${SECRET_MASK}y` } });
    const bytes = Buffer.concat([Buffer.from([0, 255]), Buffer.from('token-1234 and token-1234'), Buffer.from([1])]);
    expect(m.bytes(bytes)).toEqual(Buffer.concat([Buffer.from([0, 255]), Buffer.from(`${SECRET_MASK} and ${SECRET_MASK}`), Buffer.from([1])]));
    const clean = Buffer.from('nothing here');
    expect(m.bytes(clean)).toBe(clean);
    expect(new SecretMasker([]).text('token-1234')).toBe('token-1234');
  });

  it('finds the {{secret.name}} references of a text', () => {
    expect(secretReferences('{{secret.password}} and {{ secret.api_key }} but not {{password}}')).toEqual(['password', 'api_key']);
  });
});
