import { createSilentLogger } from '@assay/logger';
import { listen, type TestServer } from '@assay/testing';
import { createHttpApp } from './app.js';
import { cleanFilename, readMultipart } from './multipart.js';

describe('cleanFilename', () => {
  it('keeps the base name of a path written with either slash', () => {
    expect(cleanFilename('C:\\Users\\me\\photo.png')).toBe('photo.png');
    expect(cleanFilename('../../etc/passwd')).toBe('passwd');
    expect(cleanFilename('notes.txt')).toBe('notes.txt');
  });

  it('drops control characters, caps the length and names a nameless file upload.bin', () => {
    expect(cleanFilename('a\u0000b\r\n.txt')).toBe('ab.txt');
    expect(cleanFilename(`${'x'.repeat(300)}.txt`)).toHaveLength(255);
    for (const empty of [undefined, '', '  ', '..', 'dir/', '\u0007']) expect(cleanFilename(empty)).toBe('upload.bin');
  });
});

describe('readMultipart', () => {
  // A real server: the body is parsed as it arrives over HTTP.
  let server: TestServer;
  beforeAll(async () => {
    const app = createHttpApp({
      name: 'multipart-test',
      logger: createSilentLogger(),
      extraContentTypes: ['multipart/form-data'],
      mount: (a) =>
        a.post('/upload', async (req, res) => {
          const upload = await readMultipart(req, { maxBytes: 1024, fields: ['project_id'], usage: 'fields project_id and file' });
          res.json({ fields: upload.fields, file: upload.file && { ...upload.file, data: upload.file.data.toString('utf8') } });
        }),
    });
    server = await listen(app);
  });
  afterAll(() => server.close());

  const post = async (body: FormData | string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}/upload`, { method: 'POST', body, headers });
    return { status: res.status, body: (await res.json()) as any };
  };
  const form = (parts: Array<[string, string | Blob, string?]>) => {
    const f = new FormData();
    for (const [name, value, filename] of parts) {
      if (typeof value === 'string') f.append(name, value);
      else f.append(name, value, filename);
    }
    return f;
  };

  it('reads the named fields and the one file, with a cleaned name and a well-formed type', async () => {
    const r = await post(form([['project_id', 'p1'], ['other', 'ignored'], ['file', new Blob(['a,b\n1,2'], { type: 'Text/CSV' }), '../dir/cases.csv']]));
    expect(r).toEqual({ status: 200, body: { fields: { project_id: 'p1' }, file: { filename: 'cases.csv', contentType: 'text/csv', data: 'a,b\n1,2' } } });
    const raw = ['--b', 'Content-Disposition: form-data; name="file"; filename="x.bin"', `Content-Type: ${'a'.repeat(200)}/x`, '', 'x', '--b--', ''].join('\r\n');
    const odd = await post(raw, { 'content-type': 'multipart/form-data; boundary=b' });
    expect(odd.body.file).toEqual({ filename: 'x.bin', contentType: 'application/octet-stream', data: 'x' });
  });

  it('answers no file as undefined, for the caller to name what is missing', async () => {
    expect(await post(form([['project_id', 'p1']]))).toEqual({ status: 200, body: { fields: { project_id: 'p1' } } });
  });

  it('refuses another content type with 415 saying how to send it', async () => {
    const r = await post('{}', { 'content-type': 'application/json' });
    expect(r.status).toBe(415);
    expect(r.body).toMatchObject({ error: 'unsupported_media_type', message: 'Send multipart/form-data: fields project_id and file' });
  });

  it('refuses a file over the cap with 413 and the limit', async () => {
    const r = await post(form([['file', new Blob(['x'.repeat(1025)]), 'big.txt']]));
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ error: 'payload_too_large', message: 'The file exceeds 1024 bytes', details: { limit_bytes: 1024 } });
  });

  it('refuses a file in another field, a second file and a body without its boundary with 400', async () => {
    const elsewhere = await post(form([['upload', new Blob(['x']), 'x.txt']]));
    expect(elsewhere).toMatchObject({ status: 400, body: { error: 'validation_error', details: [{ field: 'upload' }] } });
    const two = await post(form([['file', new Blob(['x']), 'a.txt'], ['file', new Blob(['y']), 'b.txt']]));
    expect(two).toMatchObject({ status: 400, body: { error: 'validation_error', details: [{ field: 'file', message: 'send exactly one file' }] } });
    const noBoundary = await post('--x\r\n', { 'content-type': 'multipart/form-data' });
    expect(noBoundary).toMatchObject({ status: 400, body: { error: 'validation_error', details: [{ field: 'body' }] } });
  });
});
