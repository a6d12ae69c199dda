// A tool written without importing anything: the default export is a plain object
// with the same fields defineTool takes, and `parameters` is plain JSON Schema.
// Arguments are validated against that schema before `execute` runs.

type Zone = 'domestic' | 'europe' | 'north_america' | 'rest_of_world';

// Price table in integer cents, so the quote never suffers from float rounding.
const RATES: Record<Zone, { base_cents: number; per_kg_cents: number; days: string }> = {
  domestic: { base_cents: 495, per_kg_cents: 120, days: '1-2' },
  europe: { base_cents: 1_250, per_kg_cents: 380, days: '3-5' },
  north_america: { base_cents: 1_900, per_kg_cents: 610, days: '5-8' },
  rest_of_world: { base_cents: 2_400, per_kg_cents: 890, days: '7-14' },
};

export default {
  name: 'shipping_quote',
  description:
    'Quotes the price and delivery time of shipping a parcel, from its weight in kilograms and destination zone. ' +
    'Express doubles the price and halves the delivery time.',
  parameters: {
    type: 'object',
    properties: {
      weight_kg: { type: 'number', exclusiveMinimum: 0, maximum: 30, description: 'Parcel weight in kg (at most 30)' },
      destination: { type: 'string', enum: Object.keys(RATES), description: 'Destination zone' },
      express: { type: 'boolean', default: false },
    },
    required: ['weight_kg', 'destination'],
    additionalProperties: false,
  },
  // Charged per call on top of the model usage (here: the carrier API we would call).
  cost_usd: 0.001,
  timeout_ms: 5_000,
  execute(args: { weight_kg: number; destination: Zone; express?: boolean }) {
    const rate = RATES[args.destination];
    // Carriers bill every started half kilogram.
    const billedKg = Math.ceil(args.weight_kg * 2) / 2;
    const cents = (rate.base_cents + Math.round(billedKg * rate.per_kg_cents)) * (args.express ? 2 : 1);
    return {
      destination: args.destination,
      billed_weight_kg: billedKg,
      price: `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`,
      currency: 'EUR',
      delivery_days: args.express ? halve(rate.days) : rate.days,
    };
  },
};

function halve(days: string): string {
  return days
    .split('-')
    .map((day) => String(Math.max(1, Math.ceil(Number(day) / 2))))
    .join('-');
}
