/**
 * What one document may cost to turn into chunks. An upload is tenant input: these keep
 * one file from taking the memory, CPU time or storage that every account shares.
 */
export type ExtractionLimits = {
  /** Characters of text one document may yield (after extraction, before splitting). */
  maxTextChars: number;
  /** Chunks one document may be split into (each is a stored row and an embedding). */
  maxChunks: number;
  /** Bytes one compressed PDF stream may inflate to. */
  maxInflatedStreamBytes: number;
  /** How deep HTML elements may nest. */
  maxHtmlDepth: number;
};

export const DEFAULT_EXTRACTION_LIMITS: ExtractionLimits = {
  maxTextChars: 5_000_000,
  maxChunks: 8_000,
  maxInflatedStreamBytes: 64 * 1024 * 1024,
  maxHtmlDepth: 512,
};
