import { compileSafeRegex } from './safe-regex.ts'

/**
 * The path the target gets for a path within the project: the first `pathRewrite` pattern that
 * matches rewrites it (`$1` names a group), as http-proxy-middleware's `pathRewrite` does; none
 * matching leaves it as it is. Patterns run on RE2 (linear time), checked when the setting was saved.
 */
export function rewriteProxyPath(pathRewrite: Record<string, string>, path: string): string {
  for (const [pattern, replacement] of Object.entries(pathRewrite)) {
    const rewritten = compileSafeRegex(pattern).replaceFirst(path, replacement)
    if (rewritten !== null) return rewritten.startsWith('/') ? rewritten : `/${rewritten}`
  }
  return path
}
