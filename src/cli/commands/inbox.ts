import type { Command } from 'commander'
import { selectProject } from '../../domain/projects.ts'
import { withRuntime, type CliContext } from '../context.ts'
import { printTable } from '../output.ts'
import { parseInteger } from '../parse.ts'

interface InboxItem {
  id: string
  receivedAt: string
  headers: Record<string, string>
  body: unknown
  sizeBytes: number
  sourceIp: string | null
}

function preview(body: unknown, width: number): string {
  let text: string
  try {
    text = JSON.stringify(body) ?? ''
  } catch {
    return '(too deeply nested to preview; see --json)'
  }
  return text.length > width ? `${text.slice(0, width - 1)}…` : text
}

export function registerInbox(program: Command, ctx: CliContext): void {
  program
    .command('inbox')
    .description('list payloads received at POST /api/webhooks/inbox/{token}, newest first')
    .option('--project <slug>', 'project (default: the only or the default one)')
    .option('--limit <n>', 'how many (default 50)', parseInteger, 50)
    .option('--json', 'machine-readable JSON on stdout (bodies exactly as received)')
    .action((options: { project?: string; limit: number; json?: boolean }, command: Command) =>
      withRuntime(command, ctx, ({ context }) => {
        const project = selectProject(context, options.project)
        const json = context.repos.inbox.pageJson(project.id, Math.max(1, options.limit), 0)
        if (options.json) return ctx.io.out(json)
        const items = JSON.parse(json) as InboxItem[]
        ctx.io.out(`inbox of ${project.slug}: POST /api/webhooks/inbox/${project.shareToken}  (${context.repos.inbox.count(project.id)} received)\n`)
        printTable(ctx.io, ['ID', 'RECEIVED', 'FROM', 'SIZE', 'BODY'],
          items.map((item) => [item.id, item.receivedAt, item.sourceIp ?? '', `${item.sizeBytes} B`, preview(item.body, 60)]),
          'nothing received yet')
      }))
}
