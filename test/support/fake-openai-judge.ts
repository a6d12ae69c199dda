/**
 * The judge mode of the fake OpenAI upstream (models whose name holds `judge`): it grades
 * the `<run>` of the last user message against the `<rubric>` deterministically. The score
 * is the share of the rubric's double-quoted words the run mentions (any case), 1 when the
 * rubric quotes none; the answer is the verdict's JSON text, as a model with structured
 * output gives it. `judge-malformed` answers prose instead, as a model that ignored the format.
 */
export type JudgeAnswer = { text: string };

/** `prompt`: the text of the last user message. */
export function judgeAnswer(model: string, prompt: string): JudgeAnswer {
  if (model.includes('judge-malformed')) return { text: 'The run looks good to me, I would say eight out of ten.' };
  const rubric = between(prompt, 'rubric');
  const run = between(prompt, 'run').toLowerCase();
  const words = [...rubric.matchAll(/"([^"]+)"/g)].map((match) => match[1] ?? '');
  if (words.length === 0) return { text: JSON.stringify({ score: 1, reason: 'The rubric names no words to look for.' }) };
  const found = words.filter((word) => run.includes(word.toLowerCase()));
  const missing = words.filter((word) => !found.includes(word));
  const reason = `Mentions ${found.length} of ${words.length} words the rubric names${missing.length > 0 ? `; missing: ${missing.join(', ')}` : ''}.`;
  return { text: JSON.stringify({ score: Math.round((found.length / words.length) * 1000) / 1000, reason }) };
}

function between(text: string, tag: string): string {
  const start = text.indexOf(`<${tag}>`);
  const end = text.lastIndexOf(`</${tag}>`);
  return start < 0 || end < start ? '' : text.slice(start + tag.length + 2, end);
}
