/**
 * A Google Cloud service-account key, as the JSON file `gcloud iam service-accounts keys
 * create` writes it. Read from the operator's environment only, never from tenant input.
 */
import { z } from 'zod';

export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

const ServiceAccountKeySchema = z
  .object({
    type: z.literal('service_account'),
    client_email: z.string().min(1),
    private_key: z.string().min(1),
    private_key_id: z.string().optional(),
    project_id: z.string().optional(),
    token_uri: z.url({ protocol: /^https?$/ }).optional(),
  })
  .transform((key) => ({
    clientEmail: key.client_email,
    privateKey: key.private_key,
    privateKeyId: key.private_key_id,
    projectId: key.project_id,
    tokenUri: key.token_uri ?? GOOGLE_TOKEN_URL,
  }));

export type ServiceAccountKey = z.output<typeof ServiceAccountKeySchema>;

/** The key in `text`, or why it is not one (without echoing the text: it holds a private key). */
export function parseServiceAccountKey(text: string): ServiceAccountKey | string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return 'is not JSON';
  }
  const parsed = ServiceAccountKeySchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join('.') || '(root)'))];
  return `is not a service-account key (check ${fields.join(', ')})`;
}
