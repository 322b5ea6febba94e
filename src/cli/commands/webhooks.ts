import chalk from 'chalk'
import type { Command } from 'commander'
import { selectProject } from '../../domain/projects.ts'
import { attemptIdOf, redeliverMany, redeliverySince, type RedeliverySelection } from '../../domain/redelivery.ts'
import {
  DELIVERY_LOG_LIMIT, createSubscription, deleteSubscription, recentAttempts, redeliver, requireSubscription, updateSubscription,
} from '../../domain/subscriptions.ts'
import { AppError } from '../../errors.ts'
import { EVENT_TYPES } from '../../model.ts'
import type { Context } from '../../domain/context.ts'
import { attemptView, subscriptionView, type RedeliverySkipReason, type RedeliveryView } from '../../views.ts'
import { withRuntime, type CliContext } from '../context.ts'
import { printJson, printTable, success } from '../output.ts'
import { parseInteger } from '../parse.ts'
import { QUIET_OPTION, withProgress } from '../progress.ts'

export function registerWebhooks(program: Command, ctx: CliContext): void {
  const webhooks = program.command('webhooks').description('manage webhook subscriptions and read the delivery log')
    .addHelpText('after', '\nExamples:\n  $ mockapi webhooks add http://127.0.0.1:4000/hook --events mock.request,mock.error\n  $ mockapi webhooks deliveries\n  $ mockapi webhooks redeliver 12 13\n  $ mockapi webhooks redeliver --failed --since 1h')

  webhooks
    .command('list')
    .description('list subscriptions')
    .option('--project <slug>', 'project (default: the only or the default one)')
    .option('--json', 'machine-readable JSON on stdout (includes secrets)')
    .action((options: { project?: string; json?: boolean }, command: Command) =>
      withRuntime(command, ctx, ({ context }) => {
        const subscriptions = context.repos.subscriptions.listByProject(selectProject(context, options.project).id)
        if (options.json) return printJson(ctx.io, subscriptions.map(subscriptionView))
        printTable(ctx.io, ['ID', 'NAME', 'ON', 'EVENTS', 'TARGET'],
          subscriptions.map((s) => [s.id, s.name, s.enabled ? 'on' : 'off', s.events.join(','), s.targetUrl]),
          'no subscriptions yet: mockapi webhooks add <url>')
      }))

  webhooks
    .command('add <targetUrl>')
    .description('subscribe a URL to mock.request and/or mock.error events')
    .option('--name <name>', 'a label (default: the target host)')
    .option('--events <list>', `comma-separated: ${EVENT_TYPES.join(', ')}`, EVENT_TYPES.join(','))
    .option('--project <slug>', 'project (default: the only or the default one)')
    .option('--json', 'print the subscription as JSON')
    .action((targetUrl: string, options: { name?: string; events: string; project?: string; json?: boolean }, command: Command) =>
      withRuntime(command, ctx, ({ context }) => {
        const project = selectProject(context, options.project)
        let host = targetUrl
        try {
          host = new URL(targetUrl).host
        } catch {
          // The domain check refuses the URL with its own message.
        }
        const created = createSubscription(context, project, {
          name: options.name ?? host,
          targetUrl,
          events: options.events.split(',').map((e) => e.trim()).filter(Boolean),
        })
        if (options.json) return printJson(ctx.io, subscriptionView(created))
        ctx.io.out(success(`subscription ${created.id} (${created.name}) → ${created.targetUrl} for ${created.events.join(', ')}`))
        ctx.io.out(`  secret ${created.secret}`)
      }))

  webhooks
    .command('toggle <id>')
    .description('turn a subscription on or off (off cancels its pending retries)')
    .option('--on', 'turn on')
    .option('--off', 'turn off')
    .action((id: string, options: { on?: boolean; off?: boolean }, command: Command) =>
      withRuntime(command, ctx, ({ context }) => {
        if (options.on && options.off) throw new AppError('INVALID_INPUT', 'choose --on or --off, not both')
        const subscription = requireSubscription(context, id)
        const enabled = options.on ? true : options.off ? false : !subscription.enabled
        const updated = updateSubscription(context, subscription, { enabled })
        ctx.io.out(success(`subscription ${updated.id} is ${updated.enabled ? 'on' : 'off'}`))
      }))

  webhooks
    .command('remove <id>')
    .description('delete a subscription with its delivery log')
    .action((id: string, _options: unknown, command: Command) =>
      withRuntime(command, ctx, ({ context }) => {
        const subscription = requireSubscription(context, id)
        deleteSubscription(context, subscription)
        ctx.io.out(success(`removed subscription ${subscription.id} (${subscription.name})`))
      }))

  webhooks
    .command('deliveries [id]')
    .description('delivery attempts, newest first: of one subscription, or of every subscription of the project')
    .option('--project <slug>', 'project (default: the only or the default one)')
    .option('--limit <n>', `how many per subscription (default ${DELIVERY_LOG_LIMIT})`, parseInteger, DELIVERY_LOG_LIMIT)
    .option('--json', 'machine-readable JSON on stdout')
    .action((id: string | undefined, options: { project?: string; limit: number; json?: boolean }, command: Command) =>
      withRuntime(command, ctx, ({ context }) => {
        const subscriptions = id ? [requireSubscription(context, id)] : context.repos.subscriptions.listByProject(selectProject(context, options.project).id)
        const attempts = subscriptions
          .flatMap((s) => recentAttempts(context, s.id, Math.max(1, options.limit)).map((a) => ({ subscriptionId: s.id, ...attemptView(a) })))
          .sort((a, b) => b.id - a.id)
        if (options.json) return printJson(ctx.io, attempts)
        printTable(ctx.io, ['ID', 'SUB', 'EVENT', 'TYPE', 'ATTEMPT', 'STATUS', 'RESULT', 'MS', 'TIME'],
          attempts.map((a) => [a.id, a.subscriptionId, a.eventId, a.eventType, a.attempt, a.statusCode ?? '-',
            resultOf(a), a.durationMs, a.timestamp]),
          'no delivery attempts yet')
      }))

  webhooks
    .command('send <url>')
    .description('post a sample webhook payload (payment, subscription, user, order, post, comment, file or notification event) to your own receiver')
    .requiredOption('--event <name>', 'sample event, e.g. payment.succeeded, user.created, order.shipped (an unknown name lists them all)')
    .option('--sign <secret>', 'add X-Webhook-Signature: hex HMAC-SHA256 of "{timestamp}.{body}" with this secret')
    .option('--standard <secret>', 'add the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature) as deliveries send them, keyed by this whsec_ secret; goes with --sign too')
    .option('--show', 'print the payload sent')
    .action(async (url: string, options: { event: string; sign?: string; standard?: string; show?: boolean }) => {
      const { loadFaker } = await import('../../engine/generators.ts')
      const { samplePayload, sampleHeaders } = await import('../../domain/samples.ts')
      const { checkTargetUrl } = await import('../../domain/subscriptions.ts')
      const target = checkTargetUrl(url)
      const body = samplePayload(options.event, (await loadFaker())())
      const headers = sampleHeaders(body, { sign: options.sign, standard: options.standard })
      const started = performance.now()
      let response: Response
      try {
        response = await fetch(target, { method: 'POST', body, headers, redirect: 'manual', signal: AbortSignal.timeout(10_000) })
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message
        throw new AppError('INVALID_INPUT', `could not deliver to ${target}: ${cause}`)
      }
      await response.body?.cancel().catch(() => {})
      const ms = Math.round(performance.now() - started)
      if (options.show) ctx.io.out(JSON.stringify(JSON.parse(body), null, 2))
      const line = `${options.event} → ${target}: ${response.status} in ${ms} ms (X-Webhook-ID ${headers['x-webhook-id']})`
      if (!response.ok) throw new AppError('INVALID_INPUT', line)
      ctx.io.out(success(line))
    })

  webhooks
    .command('redeliver [deliveryIds...]')
    .description('queue once more the events of logged deliveries, or of every failed one (a running serve sends them within a second)')
    .option('--failed', 'every failed delivery not queued again since (of the project, or of --subscription)')
    .option('--subscription <id>', 'with --failed: only this subscription\'s')
    .option('--since <time>', 'with --failed: only those that failed since an ISO time or a span back (30m, 2h, 1d)')
    .option('--project <slug>', 'project (default: with --failed, the only or the default one; with ids, any)')
    .option('--json', 'print {queued, skipped, skips} as JSON')
    .option(...QUIET_OPTION)
    .action((deliveryIds: string[], options: RedeliverOptions, command: Command) =>
      withRuntime(command, ctx, async ({ context }) => {
        if (options.failed && deliveryIds.length > 0) throw new AppError('INVALID_INPUT', 'give delivery ids or --failed, not both')
        if (!options.failed && (options.subscription !== undefined || options.since !== undefined)) {
          throw new AppError('INVALID_INPUT', '--subscription and --since go with --failed')
        }
        if (!options.failed && deliveryIds.length === 0) {
          throw new AppError('INVALID_INPUT', 'give the ids of deliveries to queue again (mockapi webhooks deliveries lists them), or --failed')
        }
        if (deliveryIds.length === 1 && !options.json && options.project === undefined) {
          const { attempt } = redeliver(context, deliveryIds[0]!)
          return ctx.io.out(success(`queued ${attempt.eventType} ${attempt.eventId} again for subscription ${attempt.subscriptionId}`))
        }
        const selection = redeliverySelection(context, deliveryIds, options)
        const summary = await withProgress(ctx, options, (onProgress) => redeliverMany(context, selection, { onProgress }))
        if (options.json) return printJson(ctx.io, summary)
        printRedelivery(ctx, summary, options)
      }))
}

interface RedeliverOptions {
  failed?: boolean
  subscription?: string
  since?: string
  project?: string
  json?: boolean
  quiet?: boolean
}

/**
 * What the arguments select: attempt ids (of any project, unless `--project` names one), or the
 * failed deliveries of a project (that of `--subscription`, when given).
 */
function redeliverySelection(context: Context, deliveryIds: string[], options: RedeliverOptions): RedeliverySelection {
  if (!options.failed) {
    const attemptIds = deliveryIds.map((raw) => attemptIdOf(raw) ?? refuseId(raw))
    return { attemptIds, project: options.project === undefined ? undefined : selectProject(context, options.project) }
  }
  const named = options.project === undefined ? undefined : selectProject(context, options.project)
  const subscription = options.subscription === undefined ? null : requireSubscription(context, options.subscription, named)
  const project = subscription ? context.repos.projects.byId(subscription.projectId)! : named ?? selectProject(context, undefined)
  const since = options.since === undefined ? null : redeliverySince(context, options.since, '--since')
  return { failed: true, project, subscription, since }
}

function refuseId(raw: string): never {
  throw new AppError('INVALID_INPUT', `"${raw}" is not a delivery id: give the ids "mockapi webhooks deliveries" lists`)
}

const REASONS: Record<RedeliverySkipReason, (subscriptionId: number) => string> = {
  'subscription-off': (id) => `subscription ${id} is off (mockapi webhooks toggle ${id} --on turns it on)`,
  'subscription-deleted': (id) => `subscription ${id} was deleted`,
  'event-pruned': (id) => `their events were pruned from the log of subscription ${id} meanwhile`,
  duplicate: (id) => `another id named the same event for subscription ${id}`,
}

function printRedelivery(ctx: CliContext, summary: RedeliveryView, options: RedeliverOptions): void {
  if (summary.queued + summary.skipped === 0) {
    const of = options.subscription !== undefined ? ` of subscription ${options.subscription}` : ''
    return ctx.io.out(success(`no failed deliveries${of}${options.since !== undefined ? ` since ${options.since}` : ''} to queue again`))
  }
  const line = `queued ${plural(summary.queued, 'delivery', 'deliveries')} again${summary.queued > 0 ? ' (a running serve sends them within a second)' : ''}`
  ctx.io.out(summary.queued > 0 ? success(line) : chalk.yellow(`! ${line}`))
  for (const { subscriptionId, reason, count } of summary.skips) ctx.io.out(`  skipped ${count}: ${REASONS[reason](subscriptionId)}`)
}

const plural = (count: number, one: string, many: string) => `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`

/** The attempt's outcome by the stats' rule (what the dashboard's chart counts), with the error that made it. */
function resultOf(attempt: { outcome: string; error: string | null }): string {
  const paint = attempt.outcome === 'succeeded' ? chalk.green : attempt.outcome === 'retrying' ? chalk.yellow : chalk.red
  return attempt.error ? `${paint(attempt.outcome)} ${attempt.error}` : paint(attempt.outcome)
}
