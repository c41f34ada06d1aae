import type { Request } from 'express';
import busboy from 'busboy';
import { AppError, validationError } from '@assay/http';

export interface UploadedPart {
  filename: string;
  contentType: string;
  data: Buffer;
}

const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/i;

/** The file's base name without control characters, at most 255 characters; `upload.bin` when nothing is left. */
export function cleanFilename(raw: string | undefined): string {
  // eslint-disable-next-line no-control-regex
  const base = (raw ?? '').split(/[\\/]/).pop()!.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return base === '' || base === '.' || base === '..' ? 'upload.bin' : base.slice(0, 255);
}

const sizeText = (bytes: number) => (bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MB` : `${bytes} bytes`);

/**
 * Reads a multipart/form-data upload with one `file` field. The body is read
 * to its end even past the cap (so the answer reaches the client through any
 * proxy), but no more than `maxBytes` of it is kept.
 * @throws AppError 415 for another content type, 413 past `maxBytes`, 400 without a file or for a malformed body.
 */
export function readFileUpload(req: Request, maxBytes: number): Promise<UploadedPart> {
  const type = (req.header('content-type') ?? '').toLowerCase();
  if (!type.startsWith('multipart/form-data')) {
    return Promise.reject(new AppError('unsupported_media_type', 'Send multipart/form-data with one field "file" (curl -F file=@photo.png)'));
  }
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: req.headers, limits: { fileSize: maxBytes, files: 1, fields: 10, fieldSize: 1024 } });
    } catch {
      return reject(validationError([{ field: 'body', message: 'malformed multipart body (boundary missing?)' }]));
    }
    let file: UploadedPart | undefined;
    let failure: AppError | undefined;
    bb.on('file', (name, stream, info) => {
      if (name !== 'file') {
        failure ??= validationError([{ field: name, message: 'is not a known field; send the file as "file"' }]);
        return void stream.resume();
      }
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => {
        failure = new AppError('payload_too_large', `The file exceeds ${sizeText(maxBytes)}`, { limit_bytes: maxBytes });
        chunks.length = 0;
      });
      stream.on('close', () => {
        if (failure) return;
        const contentType = MIME.test(info.mimeType ?? '') ? info.mimeType.toLowerCase() : 'application/octet-stream';
        file = { filename: cleanFilename(info.filename), contentType, data: Buffer.concat(chunks) };
      });
    });
    bb.on('filesLimit', () => {
      failure ??= validationError([{ field: 'file', message: 'send exactly one file' }]);
    });
    bb.on('error', () => reject(validationError([{ field: 'body', message: 'malformed multipart body' }])));
    bb.on('close', () => {
      if (failure) return reject(failure);
      if (!file) return reject(validationError([{ field: 'file', message: 'is required: send the file as the multipart field "file"' }]));
      resolve(file);
    });
    req.on('aborted', () => reject(validationError([{ field: 'body', message: 'upload aborted' }])));
    req.pipe(bb);
  });
}
