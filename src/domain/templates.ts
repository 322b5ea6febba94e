import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { AppError } from '../errors.ts'
import { parseProjectFile, type ProjectFile } from './project-file.ts'

export interface TemplateInfo {
  name: string
  title: string
  description: string
}

// Two levels up from src/domain or dist/domain (and from dist/bin, where the CLI bundle runs) is the package root.
const TEMPLATES_DIR = fileURLToPath(new URL('../../templates/', import.meta.url))

function templateNames(): string[] {
  return readdirSync(TEMPLATES_DIR).filter((file) => file.endsWith('.yaml')).map((file) => file.slice(0, -'.yaml'.length)).sort()
}

export function listTemplates(): TemplateInfo[] {
  return templateNames().map((name) => {
    const template = loadTemplate(name)
    return { name, title: template.name, description: template.description }
  })
}

export function loadTemplate(name: string): ProjectFile {
  if (!/^[a-z0-9-]+$/.test(name) || !templateNames().includes(name)) {
    throw new AppError('NOT_FOUND', `no template named "${name}" (available: ${templateNames().join(', ')})`)
  }
  return parseProjectFile(readFileSync(`${TEMPLATES_DIR}${name}.yaml`, 'utf8'), `template ${name}`)
}
