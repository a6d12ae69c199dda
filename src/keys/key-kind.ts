/** The three kinds of API key (no imports: the console's browser bundle reads this too). */
export type KeyKind = 'model' | 'provisioning' | 'agent';
