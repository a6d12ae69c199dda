import { SelectField, TextField } from '../../components/ui/field.tsx';

type PropertySchema = { type?: string; enum?: unknown[]; default?: unknown; minimum?: number; maximum?: number };

/**
 * Controls drawn from a model's `media_params_schema` (JSON Schema): an enum becomes a
 * select, a number or integer a number field, a string a text field. Nothing about any
 * model is hard-coded here; the catalog says what each one takes.
 */
export function MediaParamsControls({ schema }: { schema: Record<string, unknown> }) {
  const properties = (schema['properties'] ?? {}) as Record<string, PropertySchema>;
  const required = new Set((schema['required'] ?? []) as string[]);
  return (
    <>
      {Object.entries(properties).map(([name, property]) =>
        property.enum ? (
          <SelectField key={name} label={name} name={`param:${name}`} defaultValue={String(property.default ?? property.enum[0] ?? '')} required={required.has(name)}>
            {property.enum.map((value) => (
              <option key={String(value)} value={String(value)}>
                {String(value)}
              </option>
            ))}
          </SelectField>
        ) : property.type === 'integer' || property.type === 'number' ? (
          <TextField
            key={name}
            label={name}
            name={`param:${name}`}
            type="number"
            step={property.type === 'integer' ? 1 : 'any'}
            min={property.minimum}
            max={property.maximum}
            defaultValue={property.default === undefined ? '' : String(property.default)}
            required={required.has(name)}
          />
        ) : (
          <TextField key={name} label={name} name={`param:${name}`} defaultValue={property.default === undefined ? '' : String(property.default)} required={required.has(name)} />
        ),
      )}
    </>
  );
}

/** The form's `param:*` fields as request parameters, typed as the schema says; blank fields are left out. */
export function readParams(form: FormData, schema: Record<string, unknown>): Record<string, unknown> {
  const properties = (schema['properties'] ?? {}) as Record<string, PropertySchema>;
  const params: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    const raw = form.get(`param:${name}`);
    if (typeof raw !== 'string' || raw === '') continue;
    params[name] = property.type === 'integer' || property.type === 'number' ? Number(raw) : raw;
  }
  return params;
}
