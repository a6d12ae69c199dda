import { z } from 'zod';
import { defineTool } from '../src/tools/define-tool.ts';

// A tool written with defineTool and a zod schema: `execute` gets typed arguments,
// and the registry derives the JSON Schema the model sees from the same schema.

const FACTORS = {
  length: { m: 1, km: 1_000, cm: 0.01, mm: 0.001, mi: 1_609.344, yd: 0.9144, ft: 0.3048, in: 0.0254 },
  mass: { kg: 1, g: 0.001, lb: 0.45359237, oz: 0.028349523125, t: 1_000 },
  volume: { l: 1, ml: 0.001, gal: 3.785411784, qt: 0.946352946, cup: 0.2365882365 },
} as const satisfies Record<string, Record<string, number>>;

type Dimension = keyof typeof FACTORS;
const UNITS = Object.values(FACTORS).flatMap((table) => Object.keys(table));

function dimensionOf(unit: string): Dimension | undefined {
  return (Object.keys(FACTORS) as Dimension[]).find((dimension) => unit in FACTORS[dimension]);
}

export default defineTool({
  name: 'unit_convert',
  description: `Converts a value between units of length, mass, volume or temperature. Units: ${UNITS.join(', ')}, C, F, K.`,
  parameters: z.object({
    value: z.number().describe('The amount to convert'),
    from: z.string().describe('Unit of the value, e.g. "km"'),
    to: z.string().describe('Unit to convert to, e.g. "mi"'),
  }),
  execute: ({ value, from, to }) => {
    const converted = convert(value, from, to);
    // Twelve significant digits hide binary floating-point noise such as 0.30000000000000004.
    return { value, from, to, result: Number(converted.toPrecision(12)) };
  },
});

function convert(value: number, from: string, to: string): number {
  const temperatures = ['C', 'F', 'K'];
  if (temperatures.includes(from) || temperatures.includes(to)) {
    if (!temperatures.includes(from) || !temperatures.includes(to)) throw new Error(`cannot convert ${from} to ${to}`);
    const kelvin = from === 'C' ? value + 273.15 : from === 'F' ? ((value - 32) * 5) / 9 + 273.15 : value;
    return to === 'C' ? kelvin - 273.15 : to === 'F' ? ((kelvin - 273.15) * 9) / 5 + 32 : kelvin;
  }
  const dimension = dimensionOf(from);
  if (!dimension) throw new Error(`unknown unit "${from}"`);
  const table: Record<string, number> = FACTORS[dimension];
  const fromFactor = table[from];
  const toFactor = table[to];
  if (fromFactor === undefined || toFactor === undefined) throw new Error(`cannot convert ${from} (${dimension}) to ${to}`);
  return (value * fromFactor) / toFactor;
}
