import { z } from 'zod';
import { CatalogConfigSchema } from '../../src/catalog/config-schema.ts';
import { EnvSchema } from '../../src/config/env-config.ts';
import { markdownTable, schemaRows } from './schema-rows.ts';

const INTRO = `# Configuration reference

For operators: every setting Junction reads. This page is generated from the zod schemas that
validate them (\`npm run docs\`), and a test fails when it and the schemas differ.

Junction reads its environment once at start-up and a config file (\`JUNCTION_CONFIG\`, or
\`./junction.yaml\` when present). Both are validated strictly: a bad value or an unknown key in
the file stops the start with one line naming the variable, or the file and the key's path.
`;

type JsonSchemaInput = Parameters<typeof schemaRows>[0];

/** The environment's variables, one row each, in the schema's order. */
export function environmentTable(): string {
  const rows = schemaRows(z.toJSONSchema(EnvSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchemaInput);
  return markdownTable(
    ['variable', 'type', 'default', 'meaning'],
    rows.map((row) => [`\`${row.path}\``, row.type, row.default, row.description]),
  );
}

const FILE_EXAMPLE = `## The config file

Models, aliases, plans, OpenAI-compatible providers and currency rates:

\`\`\`yaml
providers:                      # OpenAI-compatible servers; openai/anthropic/google come from the environment
  ollama:
    kind: openai-compatible
    base_url: http://localhost:11434/v1
    models:
      - llama3.2                              # → ollama/llama3.2, chat, free
      - name: qwen2.5-coder:7b
        context_length: 32768
        capabilities: [chat, tools]
  together:
    kind: openai-compatible
    base_url: https://api.together.xyz/v1
    api_key_env: TOGETHER_API_KEY             # skipped while the variable is unset
    models:
      - name: meta-llama/Llama-3.3-70B-Instruct-Turbo
        prices: { input: 0.88, output: 0.88 } # USD per million tokens
models:                         # override or add, by provider/model id
  openai/gpt-4o-mini: { max_output_tokens: 8192 }
  openai/my-finetune:
    upstream_name: "ft:gpt-4o-mini-2024-07-18:acme::abc123"
    capabilities: [chat, tools, json_output]
    prices: { input: 0.30, output: 1.20, cached_input: 0.15 }
aliases:
  fast: openai/gpt-4o-mini
plans:                          # \`*\` globs; without a \`default\` plan, \`default\` allows the whole catalog
  free: { models: ['ollama/*', fast] }
currencies: { EUR: 1.08, GBP: 1.27, CHF: 1.13 }
\`\`\`

Any other OpenAI-compatible server (vLLM, LM Studio, Groq, DeepSeek, OpenRouter…) is configured
the same way (\`headers:\` and \`query:\` carry what it needs). Azure OpenAI, Amazon Bedrock,
Vertex AI, Cohere and Mistral have providers of their own: see [the gateway](gateway.md#providers-deployments-and-routing).

### Every key
`;

/** The config file's keys, one row each. */
export function configFileTable(): string {
  const rows = schemaRows(z.toJSONSchema(CatalogConfigSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchemaInput);
  return markdownTable(
    ['key', 'type', 'default', 'meaning'],
    rows.map((row) => [`\`${row.path}\``, row.type, row.default, row.description]),
  );
}

export function renderConfigurationPage(): string {
  return `${INTRO}\n## The environment\n\n${environmentTable()}\n\n${FILE_EXAMPLE}\n${configFileTable()}\n`;
}
