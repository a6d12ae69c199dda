import type { ConsoleModel } from '@contract/models.ts';
import { type FormEvent, useEffect, useState } from 'react';
import { usd } from '../../api/client.ts';
import { withContentKeys } from '../../components/content-keys.ts';
import { Button } from '../../components/ui/button.tsx';
import { TextAreaField } from '../../components/ui/field.tsx';
import { MediaParamsControls, readParams } from './media-params-controls.tsx';

type ImageResult = { data: Array<{ url?: string; b64_json?: string }>; usage?: { cost?: number } };

const sourceOf = (image: ImageResult['data'][number]) => image.url ?? `data:image/png;base64,${image.b64_json ?? ''}`;

/**
 * "Try" for an image or speech model: the controls come from its media_params_schema,
 * the call runs as the session's account through the same route as /v1 (billed, logged).
 */
export function TryMedia({ model, csrf }: { model: ConsoleModel; csrf: string }) {
  const capabilities = model.capabilities ?? [];
  const kind = capabilities.includes('image_generation') ? 'image' : 'speech';
  const schema = model.media_params_schema ?? {};
  const [error, setError] = useState<string>();
  const [images, setImages] = useState<ImageResult & { prompt: string }>();
  const [audio, setAudio] = useState<string>();
  const [busy, setBusy] = useState(false);

  useEffect(() => () => (audio ? URL.revokeObjectURL(audio) : undefined), [audio]);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = String(form.get('prompt') ?? '');
    const body = kind === 'image' ? { model: model.id, prompt: text, ...readParams(form, schema) } : { model: model.id, input: text, ...readParams(form, schema) };
    setBusy(true);
    setError(undefined);
    try {
      const response = await fetch(`/console/api/try/${kind === 'image' ? 'images/generations' : 'audio/speech'}`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
        body: JSON.stringify(body),
      });
      if (!response.ok) throw new Error(((await response.json()) as { error?: { message?: string } }).error?.message ?? `Failed (${response.status})`);
      if (kind === 'image') setImages({ ...((await response.json()) as ImageResult), prompt: text });
      else setAudio(URL.createObjectURL(await response.blob()));
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="form-grid try-form" onSubmit={submit} aria-label={`Try ${model.id}`}>
      <TextAreaField label={kind === 'image' ? 'Prompt' : 'Text to speak'} name="prompt" rows={2} required />
      <div className="field-row">
        <MediaParamsControls schema={schema} />
      </div>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      <Button type="submit" variant="primary" disabled={busy}>
        Try
      </Button>
      {images && (
        <figure className="try-result unframed" aria-label="Generated images">
          {withContentKeys(images.data, sourceOf).map(({ key, item: image }, position) => (
            <img key={key} alt={`“${images.prompt}”, result ${position + 1} of ${images.data.length}`} src={sourceOf(image)} />
          ))}
          {images.usage?.cost !== undefined && <p className="muted">Cost {usd(images.usage.cost)}</p>}
        </figure>
      )}
      {audio && (
        <audio controls src={audio} aria-label="Generated speech">
          <track kind="captions" />
        </audio>
      )}
    </form>
  );
}
