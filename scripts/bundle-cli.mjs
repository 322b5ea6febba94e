// The CLI's bundle, dist/bin/ (`npm run build` runs this after tsc): tsc's output from
// dist/cli/main.js with its dependencies, except the native better-sqlite3 and @grpc/*.
//
// Each chunk costs Node's module loader on every start, well beyond its bytes: split only where two
// entries share modules, as the default is, `serve` loaded 48 chunks before its first answer. So
// four chunks are grouped, each loaded whole by whoever needs any of it: what main.ts loads, which
// every command does (`cli`); and of the serve command and its start path, what every command that
// opens the database loads (`db`), what is also loaded without starting a server, by `--help`,
// another command or a lazily loaded part (`core`), and the rest (`server`: h3, srvx, the server and
// the queue, which only a starting server loads). The rest of the CLI is split as usual.
import { fileURLToPath } from 'node:url'
import { build } from 'rolldown'

const dist = (path) => fileURLToPath(new URL(`../dist/${path}`, import.meta.url))
const MAIN = dist('cli/main.js')
/** The serve command, and its start path, which it loads once it has parsed its options (`--help` does not). */
const SERVE = dist('cli/commands/serve.js')
const START = dist('server/start.js')
/** runtime.ts (what a command opens the database with), store/db.ts (main's error handling) and the foundation. */
const DB = ['runtime.js', 'store/db.js', 'model.js', 'errors.js', 'events.js', 'views.js'].map(dist)

/** id → chunk name, for main's modules and serve's; filled once the module graph is known. */
const groupOf = new Map()

const groupServePath = {
  name: 'group-serve-path',
  buildEnd() {
    const imports = (id, dynamic) => {
      const info = this.getModuleInfo(id)
      return info ? [...info.importedIds, ...(dynamic ? info.dynamicallyImportedIds : [])] : []
    }
    /** Every module loaded with `roots`, statically (or also lazily), never entering `avoid`. */
    const reach = (roots, { dynamic = false, avoid = [] } = {}) => {
      const seen = new Set()
      const stack = [...roots]
      while (stack.length > 0) {
        const id = stack.pop()
        if (seen.has(id) || avoid.includes(id)) continue
        seen.add(id)
        stack.push(...imports(id, dynamic))
      }
      return seen
    }
    for (const id of reach([MAIN])) groupOf.set(id, 'cli')
    const db = reach(DB)
    const elsewhere = reach([MAIN], { dynamic: true, avoid: [START] })
    for (const id of reach([SERVE, START])) {
      if (!groupOf.has(id)) groupOf.set(id, db.has(id) ? 'db' : elsewhere.has(id) ? 'core' : 'server')
    }
  },
}

await build({
  input: { main: MAIN },
  platform: 'node',
  external: [/^better-sqlite3(\/|$)/, /^@grpc\//],
  transform: { target: 'node20' },
  plugins: [groupServePath],
  output: {
    dir: dist('bin'),
    format: 'esm',
    comments: { legal: true, annotation: false, jsdoc: false },
    codeSplitting: {
      groups: ['cli', 'db', 'core', 'server'].map((name, index) => ({ name, test: (id) => groupOf.get(id) === name, priority: 4 - index })),
    },
  },
})
