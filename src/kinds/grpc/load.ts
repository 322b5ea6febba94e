import { existsSync, readFileSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'
// Importing proto-loader also registers the well-known types protobufjs does not bundle (descriptor.proto, api.proto, …).
import protoLoader from '@grpc/proto-loader'
import protobuf from 'protobufjs'
import { AppError } from '../../errors.ts'

export interface GrpcMethodInfo {
  /** `/helloworld.Greeter/SayHello`: the HTTP/2 path gRPC uses; also the endpoint path we store. */
  path: string
  service: string
  method: string
  /** Fully qualified, e.g. `helloworld.HelloRequest`. */
  requestType: string
  responseType: string
  requestStream: boolean
  responseStream: boolean
}

export interface ProtoSpec {
  /** protobufjs `Root.toJSON()` of the file and everything it imports (incl. google/protobuf well-known types): self-contained, stored as JSON and served from without the files. */
  descriptor: Record<string, unknown>
  methods: GrpcMethodInfo[]
  /** Every package defined, e.g. ['helloworld']; used to name the import. */
  packages: string[]
}

/** How proto-loader turns the stored descriptor into serializers: the same conventions the generator follows. */
export const PROTO_LOADER_OPTIONS = { keepCase: true, longs: String, enums: String, defaults: false, oneofs: true } as const

/**
 * Parses `file` with imports resolved relative to the file's folder, then `protoPaths` in order.
 * Relative paths start from `cwd` (default: this process's); messages name `name` (default `file`).
 */
export async function loadProto(file: string, options: { protoPaths?: string[]; cwd?: string; name?: string } = {}): Promise<ProtoSpec> {
  const cwd = options.cwd ?? process.cwd()
  const name = options.name ?? file
  const main = resolve(cwd, file)
  if (!existsSync(main)) throw new AppError('INVALID_INPUT', `${name}: no such file`)
  const loader: Loader = { root: new protobuf.Root(), protoPaths: (options.protoPaths ?? []).map((p) => resolve(cwd, p)), seen: new Set(), packages: [], text: null }
  parseFile(loader, main, name)
  return finish(loader, name)
}

/**
 * Parses a .proto given as text. Only the well-known types protobufjs bundles can be imported:
 * with no file, there is no folder to resolve another import from.
 */
export async function loadProtoText(text: string, name: string): Promise<ProtoSpec> {
  const loader: Loader = { root: new protobuf.Root(), protoPaths: [], seen: new Set(), packages: [], text }
  parseFile(loader, TEXT_PATH, name)
  return finish(loader, name)
}

function finish(loader: Loader, name: string): ProtoSpec {
  try {
    loader.root.resolveAll()
  } catch (error) {
    throw new AppError('INVALID_SPEC', `${name}: ${messageOf(error)}`)
  }
  const descriptor = loader.root.toJSON() as Record<string, unknown>
  checkServable(descriptor, name)
  const methods = methodsOf(descriptor)
  if (methods.length === 0) throw new AppError('INVALID_SPEC', `${name}: defines no service (mockapi serves gRPC services; messages alone have nothing to call)`)
  return { descriptor, methods, packages: [...new Set(loader.packages)] }
}

/** The methods of a stored descriptor (the same list loadProto gave). */
export function methodsOf(descriptor: Record<string, unknown>): GrpcMethodInfo[] {
  const root = protobuf.Root.fromJSON(descriptor)
  root.resolveAll()
  return servicesOf(root).flatMap((service) => service.methodsArray.map((method) => {
    const name = service.fullName.slice(1)
    return {
      path: `/${name}/${method.name}`,
      service: name,
      method: method.name,
      requestType: method.resolvedRequestType!.fullName.slice(1),
      responseType: method.resolvedResponseType!.fullName.slice(1),
      requestStream: Boolean(method.requestStream),
      responseStream: Boolean(method.responseStream),
    }
  }))
}

interface Loader {
  root: protobuf.Root
  protoPaths: string[]
  seen: Set<string>
  /** Of the user's files, the loaded file's first. */
  packages: string[]
  /** The main file's text when it was given as text (read from no file). */
  text: string | null
}

/** Stands for the main file of a .proto given as text (no real path can equal it). */
const TEXT_PATH = '\0text'


/**
 * Reads files one by one rather than through `Root.load`: a parse error then always belongs to a
 * known file, and a type that does not resolve cannot throw from inside protobufjs' file callbacks.
 */
function parseFile(loader: Loader, path: string, name: string): void {
  if (loader.seen.has(path)) return
  loader.seen.add(path)
  let parsed: protobuf.IParserResult
  try {
    parsed = protobuf.parse(path === TEXT_PATH ? loader.text! : readFileSync(path, 'utf8'), loader.root, { keepCase: true })
  } catch (error) {
    throw new AppError('INVALID_SPEC', `${name}: ${withoutFileName(messageOf(error))}`)
  }
  if (parsed.package) loader.packages.push(parsed.package)
  for (const target of parsed.imports ?? []) importFile(loader, path, name, target, false)
  for (const target of parsed.weakImports ?? []) importFile(loader, path, name, target, true)
}

function importFile(loader: Loader, importer: string, importerName: string, target: string, weak: boolean): void {
  const bundled = bundledName(target)
  if (bundled) return addBundled(loader, bundled)
  if (loader.text !== null) {
    throw new AppError('INVALID_INPUT', `${importerName}: imports "${target}": a .proto that imports other files cannot be resolved from text; import it from its file (with --proto-path) instead`)
  }
  const folders = [dirname(importer), ...loader.protoPaths]
  const found = isAbsolute(target) ? (existsSync(target) ? target : null) : folders.map((folder) => join(folder, target)).find((candidate) => existsSync(candidate))
  if (found) return parseFile(loader, found, target)
  if (!weak) throw new AppError('INVALID_SPEC', `${importerName}: import "${target}" not found in ${folders.join(', ')} (add the folder it is relative to as a proto path)`)
}

/** protobufjs ships google/protobuf/*.proto as JSON (proto-loader adds the rest): no user path needed. */
function bundledName(target: string): string | null {
  const at = target.lastIndexOf('google/protobuf/')
  const name = at < 0 ? '' : target.slice(at)
  return name && protobuf.common.get(name) ? name : null
}

function addBundled(loader: Loader, name: string): void {
  if (loader.seen.has(name)) return
  loader.seen.add(name)
  const json = protobuf.common.get(name) as protobuf.INamespace
  loader.root.addJSON(json.nested ?? {})
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** `illegal token 'x' (/abs/a.proto, line 3)` → `illegal token 'x' (line 3)`: the caller names the file as the user wrote it. */
function withoutFileName(message: string): string {
  return message.replace(/ \((?:.*, )?(line \d+)\)$/, ' ($1)')
}

/** The stored JSON must be enough to serve from: rebuild it the way the server will. */
function checkServable(descriptor: Record<string, unknown>, file: string): void {
  try {
    protoLoader.fromJSON(JSON.parse(JSON.stringify(descriptor)) as Record<string, unknown>, PROTO_LOADER_OPTIONS)
  } catch (error) {
    throw new AppError('INVALID_SPEC', `${file}: ${messageOf(error)}`)
  }
}

function servicesOf(namespace: protobuf.NamespaceBase): protobuf.Service[] {
  return namespace.nestedArray.flatMap((child) => {
    if (child instanceof protobuf.Service) return [child]
    return child instanceof protobuf.Namespace ? servicesOf(child) : []
  })
}
