/**
 * The thread documents are extracted and split in (see document-extractor.ts): one
 * request at a time, each answered with its chunks or the reason it failed. A failure
 * that is not an ExtractionFailure is the file's doing too (a parser choking on it).
 */
import { basename } from 'node:path';
import { parentPort } from 'node:worker_threads';
import { installBoundedDecompression } from './bounded-decompression.ts';
import { isExtractionFailure } from './extraction-failure.ts';
import type { ExtractionReply, ExtractionRequest } from './extraction-protocol.ts';
import { prepareDocument } from './prepare-document.ts';

if (!parentPort) throw new Error('extraction-worker.ts runs as a worker thread');
const port = parentPort;
installBoundedDecompression();

port.on('message', (request: ExtractionRequest) => {
  prepareDocument(request.path, request.content, request.limits, request.split).then(
    (document) => port.postMessage({ id: request.id, ok: true, document } satisfies ExtractionReply),
    (error: unknown) => port.postMessage(failureReply(request, error)),
  );
});
// Every document is split: the splitter (LangChain) loads before the thread says it is ready, so no file's time limit pays for it.
await import('@langchain/textsplitters');
port.postMessage({ id: 0, ready: true } satisfies ExtractionReply);

function failureReply(request: ExtractionRequest, error: unknown): ExtractionReply {
  if (isExtractionFailure(error)) return { id: request.id, ok: false, kind: error.kind, message: error.message };
  const fileName = basename(request.path);
  if (error instanceof RangeError && /call stack/i.test(error.message)) {
    return { id: request.id, ok: false, kind: 'too_deep', message: `'${fileName}' nests too deeply to be read.` };
  }
  const reason = error instanceof Error ? error.message : String(error);
  return { id: request.id, ok: false, kind: 'unreadable', message: `'${fileName}' could not be read (${reason.slice(0, 200)}).` };
}
