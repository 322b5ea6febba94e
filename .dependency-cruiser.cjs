/**
 * The layers of src/, top to bottom; each may import only the layers below it (CONTRIBUTING.md,
 * "Layers", says why each file sits where it does). `npm run deps` checks every
 * import of src/ against these rules, type-only imports included; there is no list of exceptions.
 */
const LAYERS = {
  cli: '^src/(cli/|config\\.ts$)',
  entry: '^src/index\\.ts$',
  server: '^src/server/',
  runtime: '^src/(queue/|runtime\\.ts$)',
  domain: '^src/domain/',
  kinds: '^src/kinds/',
  engine: '^src/engine/',
  store: '^src/store/',
  foundation: '^src/(model|errors|events|views)\\.ts$',
  dashboard: '^src/dashboard/',
}

/** One rule per boundary: `from` may not import any of `above`. */
function boundary(name, from, above, comment) {
  return { name, severity: 'error', comment, from: { path: LAYERS[from] }, to: { path: above.map((layer) => LAYERS[layer]) } }
}

const EVERY_LAYER = Object.values(LAYERS)

module.exports = {
  forbidden: [
    {
      name: 'every-module-in-a-layer',
      severity: 'error',
      comment: 'This module of src/ is in no layer: add its path to one in .dependency-cruiser.cjs (and to CONTRIBUTING.md, "Layers").',
      from: { path: '^src/', pathNot: EVERY_LAYER },
      to: {},
    },
    {
      name: 'imports-only-layered-modules',
      severity: 'error',
      comment: 'The imported module of src/ is in no layer: add its path to one in .dependency-cruiser.cjs (and to CONTRIBUTING.md, "Layers").',
      from: {},
      to: { path: '^src/', pathNot: EVERY_LAYER },
    },
    {
      name: 'no-orphans',
      severity: 'error',
      comment: 'Nothing imports this module and it imports nothing: dead code, or a file that needs a layer. (The dashboard is loaded by the browser, not imported.)',
      from: { orphan: true, path: '^src/', pathNot: LAYERS.dashboard },
      to: {},
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules import each other in a loop: move what both need into a module below both.',
      from: {},
      to: { circular: true },
    },
    boundary('foundation-is-the-bottom', 'foundation', ['cli', 'entry', 'server', 'runtime', 'domain', 'kinds', 'engine', 'store', 'dashboard'],
      'model.ts, errors.ts, events.ts and views.ts are shapes every layer shares: they import only each other.'),
    boundary('store-above-foundation-only', 'store', ['cli', 'entry', 'server', 'runtime', 'domain', 'kinds', 'engine', 'dashboard'],
      'The store (SQL, migrations, repositories) imports only the foundation (model.ts, errors.ts): a shape it shares with a layer above moves down to model.ts.'),
    boundary('engine-is-pure', 'engine', ['cli', 'entry', 'server', 'runtime', 'domain', 'kinds', 'store', 'dashboard'],
      'The engine is pure routing, query and template code: no store, no domain. A shape it shares with the store moves down to model.ts.'),
    boundary('kinds-below-domain', 'kinds', ['cli', 'entry', 'server', 'runtime', 'domain', 'dashboard'],
      'An endpoint kind (openapi, graphql, grpc, soap) may use the engine, store types and model.ts, never the domain, the runtime or a server.'),
    {
      name: 'kinds-use-store-types-only',
      severity: 'error',
      comment: 'An endpoint kind may name store types but never run the store: the domain reads and writes for it.',
      from: { path: LAYERS.kinds },
      to: { path: LAYERS.store, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'kinds-are-independent',
      severity: 'error',
      comment: 'One endpoint kind never imports another (only the interface they all implement, kinds/kind.ts): what two kinds share moves down to the engine or model.ts; registry.ts lists them.',
      from: { path: '^src/kinds/([^/]+)/' },
      to: { path: LAYERS.kinds, pathNot: ['^src/kinds/$1/', '^src/kinds/kind\\.ts$'] },
    },
    boundary('domain-below-runtime', 'domain', ['cli', 'entry', 'server', 'runtime', 'dashboard'],
      'The domain knows nothing of the runtime, the webhook queue, the servers (h3, the gRPC network server) or the CLI.'),
    boundary('runtime-below-server', 'runtime', ['cli', 'entry', 'server', 'dashboard'],
      'The runtime and the webhook queue run under a server or a CLI command and import neither.'),
    boundary('server-below-cli', 'server', ['cli', 'entry', 'dashboard'],
      'The servers never import the CLI (nor its config.ts, which reads flags and the environment) or the library entry.'),
    boundary('cli-never-imports-the-entry', 'cli', ['entry', 'dashboard'],
      'src/index.ts is the library entry for test suites; the CLI imports the modules it needs directly.'),
    boundary('dashboard-stands-alone', 'dashboard', ['cli', 'entry', 'server', 'runtime', 'domain', 'kinds', 'engine', 'store'],
      'The dashboard runs in the browser and talks to the management API over HTTP; it may name only the shared shapes.'),
    {
      name: 'transports-in-server-only',
      severity: 'error',
      comment: 'Only the server layer speaks a network protocol (h3, srvx, gRPC, node:http, node:net); the layers below are called by it.',
      from: { pathNot: LAYERS.server },
      to: { path: ['^node_modules/(h3|srvx|@grpc/grpc-js|@grpc/reflection)/', '^(http|https|http2|net|tls|dgram)$'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.build.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types'],
    },
  },
}
