import { describe, expect, it } from 'vitest';
import { JunctionError } from '../../../../src/core/errors.ts';
import type { ModelRequest } from '../../../../src/core/model-types.ts';
import { convertConverseRequest } from '../../../../src/providers/bedrock/convert-converse-request.ts';

const PNG = 'iVBORw0KGgo=';
const tool = { name: 'lookup', description: 'Find a thing', parameters: { type: 'object', properties: { q: { type: 'string' } } } };

describe('canonical request → Converse body', () => {
  it('puts system text, inference settings and media where Converse wants them', () => {
    const request: ModelRequest = {
      model: 'amazon.nova-pro-v1:0',
      messages: [
        { role: 'system', content: 'be brief', cacheControl: { type: 'ephemeral' } },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image', url: `data:image/png;base64,${PNG}` },
            { type: 'image', data: PNG, mediaType: 'image/webp' },
            { type: 'file', data: Buffer.from('plain words').toString('base64'), mediaType: 'text/plain', filename: 'notes v2.txt' },
            { type: 'file', url: 's3://bucket/report.pdf', mediaType: 'application/pdf', filename: 'report.pdf' },
          ],
        },
      ],
      temperature: 0.2,
      topP: 0.9,
      topK: 40,
      maxOutputTokens: 300,
      stop: ['END'],
      seed: 7,
    };
    expect(convertConverseRequest(request)).toEqual({
      system: [{ text: 'be brief' }, { cachePoint: { type: 'default' } }],
      messages: [
        {
          role: 'user',
          content: [
            { text: 'what is this?' },
            { image: { format: 'png', source: { bytes: PNG } } },
            { image: { format: 'webp', source: { bytes: PNG } } },
            { document: { format: 'txt', name: 'notes v2', source: { text: 'plain words' } } },
            { document: { format: 'pdf', name: 'report', source: { s3Location: { uri: 's3://bucket/report.pdf' } } } },
          ],
        },
      ],
      // top_k is Anthropic's; a Nova model gets no additionalModelRequestFields for it.
      inferenceConfig: { maxTokens: 300, temperature: 0.2, topP: 0.9, stopSequences: ['END'] },
    });
  });

  it('keeps a tool history in alternating turns, tool results of parallel calls in one user turn', () => {
    const body = convertConverseRequest({
      model: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'find a and b' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'two lookups', signature: 'sig' },
            { type: 'tool-call', id: 't1', name: 'lookup', arguments: '{"q":"a"}' },
            { type: 'tool-call', id: 't2', name: 'lookup', arguments: '{"q":"b"}' },
          ],
        },
        { role: 'tool', toolCallId: 't1', content: 'A' },
        { role: 'tool', toolCallId: 't2', content: 'no such thing', isError: true },
      ],
      tools: [tool],
      toolChoice: { type: 'tool', name: 'lookup' },
      topK: 5,
    });
    expect(body.messages).toEqual([
      { role: 'user', content: [{ text: 'find a and b' }] },
      {
        role: 'assistant',
        content: [
          { reasoningContent: { reasoningText: { text: 'two lookups', signature: 'sig' } } },
          { toolUse: { toolUseId: 't1', name: 'lookup', input: { q: 'a' } } },
          { toolUse: { toolUseId: 't2', name: 'lookup', input: { q: 'b' } } },
        ],
      },
      {
        role: 'user',
        content: [{ toolResult: { toolUseId: 't1', content: [{ text: 'A' }] } }, { toolResult: { toolUseId: 't2', content: [{ text: 'no such thing' }], status: 'error' } }],
      },
    ]);
    expect(body.toolConfig).toEqual({ tools: [{ toolSpec: { name: 'lookup', description: 'Find a thing', inputSchema: { json: tool.parameters } } }], toolChoice: { tool: { name: 'lookup' } } });
    expect(body.additionalModelRequestFields).toEqual({ top_k: 5 });
  });

  it('maps tool choices; none sends no tools unless the history uses them', () => {
    const ask = (toolChoice: ModelRequest['toolChoice']) => convertConverseRequest({ model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [tool], toolChoice });
    expect(ask('auto').toolConfig?.toolChoice).toEqual({ auto: {} });
    expect(ask('required').toolConfig?.toolChoice).toEqual({ any: {} });
    expect(ask('none').toolConfig).toBeUndefined();
    const withHistory = convertConverseRequest({
      model: 'm',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        { role: 'assistant', content: [{ type: 'tool-call', id: 't1', name: 'lookup', arguments: '{}' }] },
        { role: 'tool', toolCallId: 't1', content: 'done' },
      ],
      tools: [tool],
      toolChoice: 'none',
    });
    expect(withHistory.toolConfig).toEqual({ tools: [{ toolSpec: { name: 'lookup', description: 'Find a thing', inputSchema: { json: tool.parameters } } }] });
  });

  it("drops reasoning without a signature, and lets providerOptions.bedrock add Converse's own fields", () => {
    const body = convertConverseRequest({
      model: 'm',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'from another provider' },
            { type: 'text', text: 'hello' },
          ],
        },
        { role: 'user', content: [{ type: 'text', text: 'again' }] },
      ],
      providerOptions: { bedrock: { guardrailConfig: { guardrailIdentifier: 'g1', guardrailVersion: '1' } }, anthropic: { metadata: { user_id: 'u' } } },
    });
    expect(body.messages[1]).toEqual({ role: 'assistant', content: [{ text: 'hello' }] });
    expect(body['guardrailConfig']).toEqual({ guardrailIdentifier: 'g1', guardrailVersion: '1' });
    expect(body['metadata']).toBeUndefined();
  });

  it('refuses media by web URL, which Converse cannot fetch', () => {
    const convert = () => convertConverseRequest({ model: 'm', messages: [{ role: 'user', content: [{ type: 'image', url: 'https://example.com/cat.png' }] }] });
    expect(convert).toThrow(JunctionError);
    expect(convert).toThrow('inline base64 data or s3:// locations');
  });
});
