import { SelectField, TextField } from '../../components/ui/field.tsx';

type PropertySchema = { type?: string; enum?: unknown[]; default?: unknown; minimum?: number; maximum?: number };

/** One parameter's control: a select for an enum, a number field for a number or integer, else a text field. */
function ParamControl({ name, property, required }: { name: string; property: PropertySchema; required: boolean }) {
  const defaultValue = property.default === undefined ? '' : String(property.default);
  if (property.enum) {
    return (
      <SelectField label={name} name={`param:${name}`} defaultValue={String(property.default ?? property.enum[0] ?? '')} required={required}>
        {property.enum.map((value) => (
          <option key={String(value)} value={String(value)}>
            {String(value)}
          </option>
        ))}
      </SelectField>
    );
  }
  if (property.type === 'integer' || property.type === 'number') {
    return (
      <TextField
        label={name}
        name={`param:${name}`}
        type="number"
        step={property.type === 'integer' ? 1 : 'any'}
        min={property.minimum}
        max={property.maximum}
        defaultValue={defaultValue}
        required={required}
      />
    );
  }
  return <TextField label={name} name={`param:${name}`} defaultValue={defaultValue} required={required} />;
}

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
      {Object.entries(properties).map(([name, property]) => (
        <ParamControl key={name} name={name} property={property} required={required.has(name)} />
      ))}
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
