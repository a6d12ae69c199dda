/** Ready-made first calls, one per client people use, with the server's address, a key and a model filled in. */

export type SnippetLanguage = 'curl' | 'openai' | 'anthropic' | 'gemini' | 'langchain' | 'ai-sdk';

export type Snippet = { id: SnippetLanguage; label: string; code: string };

/** Stands in for the key where it is not known (it is shown once, when created). */
export const KEY_PLACEHOLDER = 'YOUR_JUNCTION_KEY';

export function snippetsFor({ baseUrl, apiKey, model }: { baseUrl: string; apiKey: string; model: string }): Snippet[] {
  const body = JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello' }] });
  return [
    {
      id: 'curl',
      label: 'curl',
      code: [`curl ${baseUrl}/v1/chat/completions \\`, `  -H "Authorization: Bearer ${apiKey}" \\`, `  -H "Content-Type: application/json" \\`, `  -d '${body}'`].join('\n'),
    },
    {
      id: 'openai',
      label: 'OpenAI SDK',
      code: [
        `import OpenAI from 'openai';`,
        ``,
        `const client = new OpenAI({ apiKey: '${apiKey}', baseURL: '${baseUrl}/v1' });`,
        `const answer = await client.chat.completions.create({ model: '${model}', messages: [{ role: 'user', content: 'Hello' }] });`,
        `console.log(answer.choices[0].message.content);`,
      ].join('\n'),
    },
    {
      id: 'anthropic',
      label: 'Anthropic SDK',
      code: [
        `import Anthropic from '@anthropic-ai/sdk';`,
        ``,
        `const client = new Anthropic({ apiKey: '${apiKey}', baseURL: '${baseUrl}' });`,
        `const answer = await client.messages.create({ model: '${model}', max_tokens: 256, messages: [{ role: 'user', content: 'Hello' }] });`,
        `console.log(answer.content);`,
      ].join('\n'),
    },
    {
      id: 'gemini',
      label: 'Gemini SDK',
      code: [
        `import { GoogleGenAI } from '@google/genai';`,
        ``,
        `const client = new GoogleGenAI({ apiKey: '${apiKey}', httpOptions: { baseUrl: '${baseUrl}' } });`,
        `const answer = await client.models.generateContent({ model: '${model}', contents: 'Hello' });`,
        `console.log(answer.text);`,
      ].join('\n'),
    },
    {
      id: 'langchain',
      label: 'LangChain',
      code: [
        `import { ChatOpenAI } from '@langchain/openai';`,
        ``,
        `const model = new ChatOpenAI({ model: '${model}', apiKey: '${apiKey}', configuration: { baseURL: '${baseUrl}/v1' } });`,
        `const answer = await model.invoke('Hello');`,
        `console.log(answer.content);`,
      ].join('\n'),
    },
    {
      id: 'ai-sdk',
      label: 'AI SDK',
      code: [
        `import { createOpenAI } from '@ai-sdk/openai';`,
        `import { generateText } from 'ai';`,
        ``,
        `const junction = createOpenAI({ apiKey: '${apiKey}', baseURL: '${baseUrl}/v1' });`,
        `const { text } = await generateText({ model: junction.chat('${model}'), prompt: 'Hello' });`,
        `console.log(text);`,
      ].join('\n'),
    },
  ];
}
