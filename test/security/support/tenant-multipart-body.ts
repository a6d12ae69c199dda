import { randomBytes } from 'node:crypto';

/** A multipart/form-data body for inject(): plain fields, then one file. */
export function multipartBody(file: { field: string; filename: string; content: string; type?: string }, fields: Record<string, string> = {}): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----junction${randomBytes(8).toString('hex')}`;
  const parts = Object.entries(fields).map(([name, value]) => `--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  parts.push(`--${boundary}\r\ncontent-disposition: form-data; name="${file.field}"; filename="${file.filename}"\r\ncontent-type: ${file.type ?? 'text/plain'}\r\n\r\n${file.content}\r\n`);
  parts.push(`--${boundary}--\r\n`);
  return { payload: Buffer.from(parts.join('')), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
