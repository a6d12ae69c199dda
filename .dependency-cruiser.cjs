// The layers of src/ (docs/architecture.md, "The rooms of src/"): each top-level folder has
// its own floor, lowest first, and may import only folders below it. A strict order makes a
// cycle between folders impossible; the circular rule below says so in its own words.
const layers = [
  'core',
  'net',
  'store',
  'accounts',
  'credits',
  'keys',
  'conversations',
  'config',
  'http',
  'billing',
  'providers',
  'catalog',
  'routing',
  'tools',
  'ops',
  'pipeline',
  'knowledge',
  'runs',
  'gateway',
  'agents',
  'evaluation',
  'doctor',
  'assembly',
  'console',
  'admin',
  '(root)',
  'cli',
];

// The files directly in src/ (app.ts, main.ts, server.ts, ...) form the '(root)' floor.
const pathOf = (layer) => (layer === '(root)' ? '^src/[^/]+$' : `^src/${layer}/`);
const anyOf = (names) => names.map(pathOf).join('|');

const upwardRules = layers.slice(0, -1).map((layer, floor) => ({
  name: `layer-${layer}`,
  severity: 'error',
  comment: `${layer} is on floor ${floor}: it may not import a folder above it (${layers.slice(floor + 1).join(', ')})`,
  from: { path: pathOf(layer) },
  to: { path: anyOf(layers.slice(floor + 1)) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle-between-folders',
      severity: 'error',
      comment: 'a chain of imports that leaves a top-level folder of src/ may not come back to it',
      from: { path: '^src/([^/]+)/' },
      to: { circular: true, via: { pathNot: '^src/$1/' } },
    },
    {
      name: 'unlisted-folder',
      severity: 'error',
      comment: 'every top-level folder of src/ needs a floor in .dependency-cruiser.cjs',
      from: { path: '^src/', pathNot: anyOf(layers) },
      to: {},
    },
    ...upwardRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    // Type-only imports count: a type drawn from a higher folder ties the two folders as much as a value does.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.mts', '.js', '.mjs', '.json'] },
  },
};
