import chalk from 'chalk'
import { resolve } from 'node:path'
import type { Command } from 'commander'
import { DEFAULT_GRPC_PORT, DEFAULT_HOST, DEFAULT_PORT, resolveDelayFloor, resolveLockWait, resolvePort, resolveRetryDelays } from '../../config.ts'
import { parseDuration } from '../../domain/durations.ts'
import { AppError } from '../../errors.ts'
import type { DeliveryAttempted, RequestServed } from '../../events.ts'
import { dbPathOf, globalOptions, type CliContext } from '../context.ts'
import { parseInteger } from '../parse.ts'

interface ServeOptions {
  port?: number
  grpcPort?: number
  host: string
  project?: string
  quiet?: boolean
  webhookRetryDelays?: string
  delay?: string
  webhookTimeout?: string
  watch?: string
  keepInbox?: number
  keepDeliveries?: number
  seed?: number
  journal?: number
  proxy?: string
  proxyTimeout?: string
  record?: boolean
}

function checkKeep(value: number, flag: string): number {
  if (value < 1) throw new AppError('INVALID_INPUT', `${flag} must be at least 1`)
  return value
}

/** Faker's Mersenne Twister takes a 32-bit seed. */
const MAX_SEED = 2 ** 32 - 1

function checkSeed(value: number): number {
  if (value < 0 || value > MAX_SEED) throw new AppError('INVALID_INPUT', `--seed ${value} must be from 0 to ${MAX_SEED}`)
  return value
}

function statusColor(status: number): (text: string) => string {
  if (status >= 500) return chalk.red
  if (status >= 400) return chalk.yellow
  return chalk.green
}

/**
 * Calls `stop` on SIGINT or SIGTERM, or, given a signal, when it aborts (at once if it has) instead
 * of on the process's signals. Returns what stops listening.
 */
function listenForStop(signal: AbortSignal | undefined, stop: (reason: string) => void): () => void {
  if (signal) {
    const onAbort = () => stop('stopped')
    signal.addEventListener('abort', onAbort, { once: true })
    if (signal.aborted) onAbort()
    return () => signal.removeEventListener('abort', onAbort)
  }
  const onSignal = (name: NodeJS.Signals) => stop(name)
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  return () => {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
}

export function registerServe(program: Command, ctx: CliContext): void {
  program
    .command('serve')
    .description('start the mock server (creates a demo project on an empty database)')
    .addHelpText('after', '\nExamples:\n  $ mockapi serve\n  $ mockapi serve --port 4000 --project shop\n  $ mockapi serve --watch mockapi.yaml --webhook-retry-delays 1s,5s')
    .option('--port <port>', `port to listen on, 0 picks a free one (env MOCKAPI_PORT; default ${DEFAULT_PORT})`, parseInteger)
    .option('--host <host>', 'interface to listen on', DEFAULT_HOST)
    .option('--grpc-port <port>', `port for imported gRPC services, 0 picks a free one; used once a project has some (env MOCKAPI_GRPC_PORT; default ${DEFAULT_GRPC_PORT})`, parseInteger)
    .option('--project <slug>', 'project also served at its endpoints\' own paths (default: the default project)')
    .option('--webhook-retry-delays <list>', 'delays between delivery attempts (env MOCKAPI_WEBHOOK_RETRY_DELAYS; default 5s,30s,2m,10m,30m)')
    .option('--webhook-timeout <duration>', 'time a receiver has to answer one delivery (default 10s)')
    .option('--watch <file>', 'apply this project file (mockapi export format) at start and whenever it changes')
    .option('--keep-inbox <n>', 'inbox payloads kept per project; older ones are pruned (default 1000)', parseInteger)
    .option('--keep-deliveries <n>', 'finished deliveries (with their attempts) kept per subscription (default 1000)', parseInteger)
    .option('--delay <ms|min-max>', 'every mock answer waits at least this long: 250, or a range 100-300 drawn per request (env MOCKAPI_DELAY)')
    .option('--seed <n>', 'draw simulated errors (error rates) from a generator seeded with n, so runs repeat them (default: unseeded)', parseInteger)
    .option('--journal <n>', 'mock requests kept per project for tests and the dashboard to query; 0 keeps none (default 5000)', parseInteger)
    .option('--proxy <url>', 'forward every request the project at its own paths does not match (there and under /api/{slug}/) to this http(s) URL, and answer what it answers (replaces its proxy setting\'s target)')
    .option('--record', 'keep what the proxy target answers as the project\'s resources and endpoints until mockapi record stop or Ctrl-C; while recording, every request of the project goes to the target')
    .option('--proxy-timeout <duration>', 'how long a proxy target (--proxy or a project\'s setting) may stay silent before a request answers 504 PROXY_TIMEOUT (default 30s)')
    .option('--quiet', 'do not log each request and delivery attempt')
    .action(async (options: ServeOptions, command: Command) => {
      const { startServer } = await import('../../server/start.ts')
      const dbPath = dbPathOf(command, ctx)
      const port = resolvePort(options.port, 'MOCKAPI_PORT', DEFAULT_PORT, ctx.environment)
      const grpcPort = resolvePort(options.grpcPort, 'MOCKAPI_GRPC_PORT', DEFAULT_GRPC_PORT, ctx.environment).port
      let storeLost: string | null = null
      let stopServing = (_reason: string) => {}
      const server = await startServer({
        dbPath,
        port: port.port,
        host: options.host,
        grpcPort,
        onGrpcError: (error) => ctx.io.err(chalk.red(`✖ gRPC methods not served: ${error.message}`)),
        onGrpcStarted: (port) => ctx.io.out(`${chalk.green('✔')} gRPC methods were imported: listening for gRPC on ${chalk.cyan(`${options.host}:${port}`)}`),
        log: (line) => ctx.io.err(line.startsWith('✔') ? chalk.green(line) : chalk.yellow(line)),
        onStoreLost: (message) => {
          storeLost = message
          stopServing('database gone')
        },
        ownPathsProject: options.project,
        seed: options.seed === undefined ? undefined : checkSeed(options.seed),
        delay: resolveDelayFloor(options.delay, ctx.environment),
        journal: options.journal,
        proxy: options.proxy === undefined ? undefined : {
          target: options.proxy,
          timeoutMs: options.proxyTimeout === undefined ? undefined : parseDuration(options.proxyTimeout, 'proxy timeout'),
        },
        record: options.record,
        debug: globalOptions(command).debug ?? false,
        retryDelaysMs: resolveRetryDelays(options.webhookRetryDelays, ctx.environment),
        deliveryTimeoutMs: options.webhookTimeout ? parseDuration(options.webhookTimeout, 'webhook timeout') : undefined,
        lockWaitMs: resolveLockWait(ctx.environment),
        // Only the default port gives way to a free one: a port asked for (flag or MOCKAPI_PORT) must be that port.
        fallbackPort: !port.asked,
        retention: {
          ...(options.keepInbox === undefined ? {} : { inboxPerProject: checkKeep(options.keepInbox, '--keep-inbox') }),
          ...(options.keepDeliveries === undefined ? {} : { deliveriesPerSubscription: checkKeep(options.keepDeliveries, '--keep-deliveries') }),
        },
        ...(options.watch ? { config: { path: resolve(ctx.environment.cwd, options.watch) }, watch: true } : {}),
        onWatch: (outcome) => {
          const time = chalk.dim(new Date().toISOString().slice(11, 23))
          if (!outcome.ok) return ctx.io.err(`${time} ${chalk.red(`✖ ${options.watch} not applied, still serving the last good version: ${outcome.error.message}`)}`)
          const { changes } = outcome.result
          ctx.io.out(`${time} ${chalk.green('✔')} applied ${options.watch}: ${changes.length ? changes.join(', ') : 'no changes'}`)
        },
      })
      if (server.port !== port.port && port.port !== 0) {
        ctx.io.err(chalk.yellow(`! port ${port.port} is in use; using ${server.port}`))
      }
      if (server.createdDemo) ctx.io.out(chalk.dim(`created ${dbPath} with the demo project (blog template)`))
      if (server.configured) ctx.io.out(chalk.dim(`applied ${options.watch} to project ${server.configured.slug}; watching it for changes`))
      ctx.io.out(`${chalk.bold('mockapi')} listening on ${chalk.cyan(server.url)}`)
      for (const project of server.projects) {
        const own = project.servedAtOwnPaths ? chalk.dim('  (default: also at its own paths)') : ''
        ctx.io.out(`  ${project.slug.padEnd(16)} ${chalk.cyan(`${server.url}/api/${project.slug}/`)}${own}`)
      }
      if (options.proxy !== undefined) {
        const own = server.projects.find((project) => project.servedAtOwnPaths)
        ctx.io.out(`  ${'proxy'.padEnd(16)} ${chalk.cyan(options.proxy)}${chalk.dim(`  (what ${own?.slug ?? 'the project at its own paths'} does not match)`)}`)
      }
      if (options.record) {
        const own = server.projects.find((project) => project.servedAtOwnPaths)
        ctx.io.out(`  ${'recording'.padEnd(16)} ${chalk.red('●')} ${chalk.dim(`${own?.slug ?? ''}: every request goes to the target and its answer is kept; mockapi record stop or Ctrl-C ends it`)}`)
      }
      ctx.io.out(`  ${'health'.padEnd(16)} ${chalk.cyan(`${server.url}/api/health`)}`)
      ctx.io.out(`  ${'dashboard'.padEnd(16)} ${chalk.cyan(`${server.url}/_mockapi/#token=${await server.dashboardToken()}`)}`)
      if (server.grpcPort !== null) ctx.io.out(`  ${'gRPC'.padEnd(16)} ${chalk.cyan(`${options.host}:${server.grpcPort}`)}`)
      ctx.io.out(chalk.dim('Ctrl-C to stop'))
      if (!options.quiet) {
        server.events.on('request.served', (served: RequestServed) => {
          ctx.io.out(`${chalk.dim(new Date().toISOString().slice(11, 23))} ${served.method.padEnd(6)} ${served.path}${served.proxied ? chalk.dim(' ⇢ proxy') : ''} ${served.fault ? chalk.red(`✖ ${served.fault}`) : statusColor(served.status)(String(served.status))} ${chalk.dim(`${served.durationMs}ms`)}${served.answeredBy ? chalk.dim(` → #${served.answeredBy.position}${served.answeredBy.name === null ? '' : ` "${served.answeredBy.name}"`}`) : ''}`)
        })
        server.events.on('delivery.attempted', (a: DeliveryAttempted) => {
          const result = a.succeeded ? chalk.green(String(a.statusCode)) : chalk.red(a.error ?? 'failed')
          ctx.io.out(`${chalk.dim(new Date().toISOString().slice(11, 23))} ${chalk.magenta('webhook')} #${a.subscriptionId} ${a.eventType} attempt ${a.attempt} ${result} ${chalk.dim(`${a.durationMs}ms → ${a.outcome}`)}`)
        })
      }
      const debug = globalOptions(command).debug ?? false
      // A net, not the fix: whatever escapes the server's own handling is reported and serving goes on.
      const survive = (error: unknown) => {
        ctx.io.err(chalk.red(`✖ unexpected error (still serving): ${(error as Error)?.message ?? String(error)}`))
        if (debug) ctx.io.err(String((error as Error)?.stack ?? error))
      }
      // Without a signal the process is serve's own; a program running the CLI inside it keeps its handlers.
      const ownsProcess = ctx.signal === undefined
      if (ownsProcess) {
        process.on('uncaughtException', survive)
        process.on('unhandledRejection', survive)
      }
      await new Promise<void>((resolve) => {
        let stopListening = () => {}
        stopServing = (reason) => {
          stopServing = () => {}
          stopListening()
          ctx.io.out(chalk.dim(`\n${reason}: shutting down`))
          server.close().then(resolve, resolve)
        }
        stopListening = listenForStop(ctx.signal, (reason) => stopServing(reason))
        if (storeLost) stopServing('database gone')
      })
      if (ownsProcess) {
        process.off('uncaughtException', survive)
        process.off('unhandledRejection', survive)
      }
      if (storeLost) throw new AppError('STORE_UNAVAILABLE', storeLost)
    })
}
