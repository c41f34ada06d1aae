import type { Request } from 'express';
import busboy from 'busboy';
import { AppError, validationError } from '@assay/http';

export const MAX_IMPORT_BYTES = 20 * 1024 * 1024;

export interface ImportUpload {
  projectId: string | undefined;
  file: { content: Buffer; filename?: string; mimetype?: string } | undefined;
}

/**
 * Reads a multipart/form-data import: fields `project_id` and `file`.
 * @throws AppError 415 for another content type, 413 past 20 MB, 400 for a malformed body.
 */
export function readImportUpload(req: Request): Promise<ImportUpload> {
  const type = (req.header('content-type') ?? '').toLowerCase();
  if (!type.startsWith('multipart/form-data')) {
    return Promise.reject(new AppError('unsupported_media_type', 'Send multipart/form-data with fields project_id and file'));
  }
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: req.headers, limits: { fileSize: MAX_IMPORT_BYTES, files: 1, fields: 10, fieldSize: 1024 } });
    } catch {
      return reject(validationError([{ field: 'body', message: 'malformed multipart body (boundary missing?)' }]));
    }
    const upload: ImportUpload = { projectId: undefined, file: undefined };
    let failure: AppError | undefined;
    bb.on('field', (name, value) => {
      if (name === 'project_id') upload.projectId = value;
    });
    bb.on('file', (name, stream, info) => {
      if (name !== 'file') return void stream.resume();
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => {
        failure = new AppError('payload_too_large', `The file exceeds ${MAX_IMPORT_BYTES / 1024 / 1024} MB`);
      });
      stream.on('close', () => {
        upload.file = { content: Buffer.concat(chunks), filename: info.filename, mimetype: info.mimeType };
      });
    });
    bb.on('filesLimit', () => {
      failure ??= validationError([{ field: 'file', message: 'send exactly one file' }]);
    });
    bb.on('error', () => reject(validationError([{ field: 'body', message: 'malformed multipart body' }])));
    bb.on('close', () => (failure ? reject(failure) : resolve(upload)));
    req.on('aborted', () => reject(validationError([{ field: 'body', message: 'upload aborted' }])));
    req.pipe(bb);
  });
}
