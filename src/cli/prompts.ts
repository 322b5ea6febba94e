/** The only importer of @inquirer/prompts; loaded only when a terminal is there to answer. */
export interface InitAnswers {
  name: string
  slug: string
  template: string | null
  resources: string[]
}

export async function askInit(defaults: {
  name: string
  slugOf: (name: string) => string
  checkSlug: (slug: string) => string | true
  templates: { name: string; description: string }[]
  checkPath: (path: string) => string | true
}): Promise<InitAnswers> {
  const { input, select } = await import('@inquirer/prompts')
  const name = await input({ message: 'Project name', default: defaults.name, validate: (v) => v.trim() !== '' || 'name must not be empty' })
  const slug = await input({ message: 'Slug (used in /api/{slug}/…)', default: defaults.slugOf(name), validate: defaults.checkSlug })
  const template = await select<string | null>({
    message: 'Start from a template',
    choices: [
      { name: 'none (empty project)', value: null },
      ...defaults.templates.map((t) => ({ name: `${t.name} — ${t.description}`, value: t.name })),
    ],
  })
  const resources: string[] = []
  for (;;) {
    const path = await input({
      message: resources.length ? 'Another resource path (empty to finish)' : 'Resource path, e.g. /api/blog-posts (empty to skip)',
      validate: (v) => v.trim() === '' || defaults.checkPath(v.trim()),
    })
    if (!path.trim()) break
    resources.push(path.trim())
  }
  return { name, slug, template, resources }
}
