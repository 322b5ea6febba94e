import { afterAll, describe, expect, it } from 'vitest'
import { isRecording, startRecording } from '../../src/domain/recording.ts'
import { requireProjectBySlug } from '../../src/domain/projects.ts'
import { cleanup, cliWorkspace, openStore } from '../_helpers.ts'

afterAll(cleanup)

describe('mockapi record', () => {
  it('stop ends a recording another connection started and reads per exchange; status says so', async () => {
    const workspace = cliWorkspace()
    await workspace.ok('init', '--yes', '--slug', 'shop')
    // The serve's connection: it started the recording and asks before keeping each exchange.
    const { context } = openStore(workspace.db)
    const project = requireProjectBySlug(context, 'shop')
    startRecording(context, project, 'https://user:pw@api.example.com/v1?api_key=sekr1t&region=eu')
    expect(isRecording(context, project.id)).toBe(true)

    const status = await workspace.ok('record', 'status', '--project', 'shop')
    expect(status).toContain('project shop is recording what is proxied to https://api.example.com/v1?region=eu (since ')
    expect(JSON.parse(await workspace.ok('record', 'status', '--json')).recording.target).toBe('https://api.example.com/v1?region=eu')

    expect(await workspace.ok('record', 'stop')).toContain('stopped recording project shop')
    expect(isRecording(context, project.id)).toBe(false)
    expect(await workspace.ok('record', 'status')).toContain('project shop is not recording')
    expect(await workspace.ok('record', 'stop')).toContain('project shop was not recording')
    expect(JSON.parse(await workspace.ok('record', 'stop', '--json'))).toEqual({ project: 'shop', stopped: false })
  })

  it('refuses a project that does not exist', async () => {
    const workspace = cliWorkspace()
    await workspace.ok('init', '--yes', '--slug', 'shop')
    const result = await workspace.run('record', 'stop', '--project', 'nope')
    expect(result.code).not.toBe(0)
    expect(result.stderr).toContain('nope')
  })
})
