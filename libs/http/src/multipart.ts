import type { Request } from 'express';
import busboy from 'busboy';
import { AppError, validationError } from './errors.js';

/** The one file of a multipart upload. */
export interface UploadedPart {
  /** Its base name, cleaned (`cleanFilename`). */
  filename: string;
  /** Its declared type when well formed, lower-cased; else `application/octet-stream`. */
  contentType: string;
  data: Buffer;
}

export interface MultipartUpload {
  /** The text fields named in `fields` that were sent (others are ignored). */
  fields: Record<string, string>;
  /** The `file` field, when one was sent. */
  file: UploadedPart | undefined;
}

export interface MultipartOptions {
  /** The most of the file that is kept; past it the upload is refused with 413. */
  maxBytes: number;
  /** Text fields read besides the file. */
  fields?: readonly string[];
  /** How to send it, for the 415 answer (e.g. `curl -F file=@photo.png`). */
  usage: string;
  /** The field that carries the file (`file` unless told). */
  fileField?: string;
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
 * Reads a multipart/form-data body: one file in the field `file` and the text
 * fields named in `fields`. The body is read to its end even past the cap (so
 * the answer reaches the client through any proxy), but no more than
 * `maxBytes` of the file is kept. A missing file is the caller's to refuse
 * (`file` is undefined): it knows which field to name first.
 * @throws AppError 415 for another content type; 413 past `maxBytes`; 400 for a
 * file in another field, more than one file, or a malformed or aborted body.
 */
export function readMultipart(req: Request, options: MultipartOptions): Promise<MultipartUpload> {
  const { maxBytes } = options;
  const type = (req.header('content-type') ?? '').toLowerCase();
  if (!type.startsWith('multipart/form-data')) return Promise.reject(new AppError('unsupported_media_type', `Send multipart/form-data: ${options.usage}`));
  const wanted = new Set(options.fields ?? []);
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: req.headers, limits: { fileSize: maxBytes, files: 1, fields: 10, fieldSize: 1024 } });
    } catch {
      return reject(validationError([{ field: 'body', message: 'malformed multipart body (boundary missing?)' }]));
    }
    const upload: MultipartUpload = { fields: {}, file: undefined };
    let failure: AppError | undefined;
    bb.on('field', (name, value) => {
      if (wanted.has(name)) upload.fields[name] = value;
    });
    const fileField = options.fileField ?? 'file';
    bb.on('file', (name, stream, info) => {
      if (name !== fileField) {
        failure ??= validationError([{ field: name, message: `is not a known field; send the file as "${fileField}"` }]);
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
        upload.file = { filename: cleanFilename(info.filename), contentType, data: Buffer.concat(chunks) };
      });
    });
    bb.on('filesLimit', () => {
      failure ??= validationError([{ field: fileField, message: 'send exactly one file' }]);
    });
    bb.on('error', () => reject(validationError([{ field: 'body', message: 'malformed multipart body' }])));
    bb.on('close', () => (failure ? reject(failure) : resolve(upload)));
    req.on('aborted', () => reject(validationError([{ field: 'body', message: 'upload aborted' }])));
    req.pipe(bb);
  });
}
