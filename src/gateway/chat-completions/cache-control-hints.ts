import type { CacheControl, ModelRequest } from '../../core/model-types.ts';
import { CacheControlSchema } from '../messages/messages-request-schema.ts';
import type { UnknownFields } from '../tolerant-reader.ts';

/**
 * Anthropic's prompt-cache breakpoints as OpenRouter's chat-completions clients send them:
 * `cache_control` on a content part of a message (`messages.N.content.M.cache_control`) or
 * on a tool (`tools.N.cache_control`). The chat schema does not know the field, so the
 * tolerant reader set it aside; here it becomes the canonical part's `cacheControl`, which
 * the Anthropic adapter sends as `cache_control`. The field stays among the nested ones,
 * so an OpenAI-format upstream still receives it where it was; it is no longer named as
 * dropped, since it was honoured (providers without explicit caching ignore the hint).
 */
export function liftCacheControlHints(request: Omit<ModelRequest, 'model'>, unknown: UnknownFields): void {
  const lifted = new Set<string>();
  for (const field of unknown.nestedFields ?? []) {
    const { path } = field;
    if (path.at(-1) !== 'cache_control') continue;
    const parsed = CacheControlSchema.safeParse(field.value);
    if (!parsed.success) continue;
    const cacheControl: CacheControl = parsed.data.ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl: parsed.data.ttl };
    if (placeHint(request, path, cacheControl)) lifted.add(field.name);
  }
  if (lifted.size > 0) unknown.nested = unknown.nested.filter((name) => !lifted.has(name));
}

function placeHint(request: Omit<ModelRequest, 'model'>, path: ReadonlyArray<string | number>, cacheControl: CacheControl): boolean {
  const [root, index, third, partIndex] = path;
  if (typeof index !== 'number') return false;
  if (root === 'tools' && path.length === 3) {
    const tool = request.tools?.[index];
    if (tool) tool.cacheControl = cacheControl;
    return tool !== undefined;
  }
  if (root !== 'messages' || third !== 'content' || typeof partIndex !== 'number' || path.length !== 5) return false;
  const message = request.messages[index];
  switch (message?.role) {
    case 'user': {
      const part = message.content[partIndex];
      if (part) part.cacheControl = cacheControl;
      return part !== undefined;
    }
    // Their parts are joined into one text: the hint marks the whole of it.
    case 'system':
    case 'tool':
      message.cacheControl = cacheControl;
      return true;
    default:
      return false;
  }
}
