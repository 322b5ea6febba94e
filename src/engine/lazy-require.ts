import nodeModule from 'node:module'

const requireCommonJs = nodeModule.createRequire(import.meta.url)

/**
 * A CommonJS package loaded by the first call, not with the module that needs it: code that runs
 * synchronously (a pattern compiled, a delivery signed) cannot await an `import()`, and loading
 * such a package up front held up `serve`'s first answer.
 */
export function lazyRequire<T>(name: string): () => T {
  let loaded: T | undefined
  return () => (loaded ??= requireCommonJs(name) as T)
}
