import type { Command } from 'commander'
import { selectProject } from '../../domain/projects.ts'
import { recordingOf, stopRecording } from '../../domain/recording.ts'
import { withRuntime, type CliContext } from '../context.ts'
import { printJson, success } from '../output.ts'

interface RecordFlags {
  project?: string
  json?: boolean
}

export function registerRecord(program: Command, ctx: CliContext): void {
  const record = program
    .command('record')
    .description('the recording of `serve --proxy URL --record`: see it, or end it from another terminal')
    .addHelpText('after', '\nExamples:\n  $ mockapi record status\n  $ mockapi record stop --project shop')
  record
    .command('status')
    .description('whether the project is being recorded, from which target and since when')
    .option('--project <slug>', 'project (default: the only or the default one)')
    .option('--json', 'print {project, recording: {target, startedAt} | null}')
    .action((flags: RecordFlags, command: Command) =>
      withRuntime(command, ctx, ({ context }) => {
        const project = selectProject(context, flags.project)
        const recording = recordingOf(context, project)
        if (flags.json) return printJson(ctx.io, { project: project.slug, recording })
        ctx.io.out(recording
          ? `project ${project.slug} is recording what is proxied to ${recording.target} (since ${recording.startedAt})`
          : `project ${project.slug} is not recording`)
      }))
  record
    .command('stop')
    .description('end the recording: the serve recording it keeps proxying but stores no more exchanges')
    .option('--project <slug>', 'project (default: the only or the default one)')
    .option('--json', 'print {project, stopped}')
    .action((flags: RecordFlags, command: Command) =>
      withRuntime(command, ctx, ({ context }) => {
        const project = selectProject(context, flags.project)
        const stopped = stopRecording(context, project)
        if (flags.json) return printJson(ctx.io, { project: project.slug, stopped })
        ctx.io.out(stopped ? success(`stopped recording project ${project.slug}`) : `project ${project.slug} was not recording`)
      }))
}
