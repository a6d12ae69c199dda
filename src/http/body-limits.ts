/** Chat and embedding bodies may be this large (images inline); others keep fastify's 1 MiB. */
export const LARGE_BODY_LIMIT = 50 * 1024 * 1024;
/** Audio uploads for transcription and translation. */
export const AUDIO_UPLOAD_LIMIT = 25 * 1024 * 1024;
