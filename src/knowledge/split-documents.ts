import type { KnowledgeDocument } from './load-documents.ts';
import { atxHeading } from './markdown-heading.ts';

export type KnowledgeChunk = {
  /** Position in the document, from 0. */
  chunkIndex: number;
  /** Heading path of the section the chunk comes from, e.g. `Refunds > Timing`. */
  heading?: string;
  content: string;
};

export type SplitOptions = { chunkSize?: number; chunkOverlap?: number };

/**
 * About 250 tokens per chunk: small enough that the top few chunks fit in an agent's
 * context beside the conversation and that a chunk is about one thing (sharper
 * embeddings), large enough to carry a full answer to a support question. The overlap
 * keeps a sentence cut at a boundary readable in one of the two chunks.
 */
export const DEFAULT_CHUNK_SIZE = 1000;
export const DEFAULT_CHUNK_OVERLAP = 150;

type Section = { headings: string[]; body: string };

/**
 * Splits a document into chunks. Markdown (and HTML, which the loader turns into
 * Markdown-like text) is first cut at headings so every chunk knows its heading path;
 * each section then goes through LangChain's Markdown splitter, which prefers
 * paragraph and line boundaries. Plain text and PDF use the recursive splitter.
 */
export async function splitDocument(document: Pick<KnowledgeDocument, 'text' | 'format' | 'title'>, options: SplitOptions = {}): Promise<KnowledgeChunk[]> {
  const config = {
    chunkSize: options.chunkSize ?? DEFAULT_CHUNK_SIZE,
    chunkOverlap: options.chunkOverlap ?? DEFAULT_CHUNK_OVERLAP,
  };
  // Imported here, not at the top: it brings LangChain core, which start-up should not wait for.
  const { MarkdownTextSplitter, RecursiveCharacterTextSplitter } = await import('@langchain/textsplitters');
  const structured = document.format === 'markdown' || document.format === 'html';
  const splitter = structured ? new MarkdownTextSplitter(config) : new RecursiveCharacterTextSplitter(config);
  const sections = structured ? markdownSections(document.text) : [{ headings: [], body: document.text }];
  const chunks: KnowledgeChunk[] = [];
  for (const section of sections) {
    // A top-level heading that repeats the title adds nothing to the path.
    const headings = section.headings.filter((heading, level) => !(level === 0 && heading === document.title));
    const heading = headings.length > 0 ? headings.join(' > ') : undefined;
    for (const piece of await splitter.splitText(section.body)) {
      const content = piece.trim();
      if (content === '') continue;
      chunks.push({ chunkIndex: chunks.length, ...(heading ? { heading } : {}), content });
    }
  }
  return chunks;
}

/**
 * Cuts Markdown at ATX headings (`#`…`######`), tracking the heading path. Lines
 * inside fenced code blocks are never headings (a `# comment` in a shell snippet).
 * Heading levels may skip (`#` then `###`); the path keeps only real ancestors.
 */
/** A fence line: three or more backticks or tildes (up to three spaces in), then the rest. */
const FENCE = /^\s{0,3}(`{3,}|~{3,})(.*)$/;

export function markdownSections(markdown: string): Section[] {
  const sections: Section[] = [];
  const stack: { level: number; text: string }[] = [];
  let body: string[] = [];
  let fence: string | undefined;
  const flush = () => {
    const text = body.join('\n').trim();
    if (text !== '') sections.push({ headings: stack.map((entry) => entry.text), body: text });
    body = [];
  };
  for (const line of markdown.split(/\r?\n/)) {
    // Written with counted repeats, not three literal backticks: tools that scan source
    // as text (highlighters, Markdown extractors) took those for an unclosed fence.
    const fenceMatch = FENCE.exec(line);
    if (fenceMatch) {
      const marker = fenceMatch[1] ?? '';
      // CommonMark: a fence closes with the same character, at least as many times, and nothing after it.
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length && (fenceMatch[2] ?? '').trim() === '') fence = undefined;
    }
    const heading = fence === undefined && !fenceMatch ? atxHeading(line) : undefined;
    if (!heading) {
      body.push(line);
      continue;
    }
    flush();
    while (stack.length > 0 && (stack[stack.length - 1]?.level ?? 0) >= heading.level) stack.pop();
    stack.push(heading);
  }
  flush();
  return sections;
}
