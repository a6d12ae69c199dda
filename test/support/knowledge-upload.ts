import type { ConsoleSession } from './console-session.ts';

/** Uploads one file to a console knowledge collection as the browser does (multipart, one file). */
export function uploadKnowledgeFile(session: ConsoleSession, collection: string, filename: string, content: string | Buffer) {
  const boundary = '----junction-knowledge';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    Buffer.isBuffer(content) ? content : Buffer.from(content),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return session.request('POST', `/console/api/knowledge/collections/${collection}/documents`, body, { 'content-type': `multipart/form-data; boundary=${boundary}` });
}
