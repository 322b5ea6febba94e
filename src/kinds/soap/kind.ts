import type { SpecKind } from '../kind.ts'

/** Where a WSDL service is answered: `/soap/Calculator`. */
export function soapMount(service: string): string {
  return `/soap/${service}`
}

/** `/soap/Calculator#Add`: the endpoint path of a service's operation. */
export function soapOperationPath(service: string, operation: string): string {
  return `${soapMount(service)}#${operation}`
}

/** A SOAP WSDL 1.1, stored as written; one endpoint per operation of each service. */
export const soapKind: SpecKind<'soap'> = {
  name: 'soap',
  routing: 'mount',
  answerAtMount: async () => (await import('./answer.ts')).answerSoap,
  callArguments: ['-H', "'content-type: text/xml'", '--data-binary', '@envelope.xml'],
  label: 'WSDL',
  mounted: { noun: 'SOAP service', another: 'a SOAP service' },
  defaultStatus: () => 200,
  detect: {
    extensions: ['.wsdl'],
    looksLike: /<(?:\w+:)?definitions[\s>]/,
    described: 'SOAP (WSDL 1.1)',
  },
  async load(input) {
    const [{ loadWsdl }, text] = await Promise.all([import('./load.ts'), input.read()])
    const wsdl = await loadWsdl(text, input.name)
    return {
      title: wsdl.title || null,
      version: 'WSDL 1.1',
      document: text,
      operations: wsdl.services.flatMap((service) => service.operations.map((op) => ({ method: 'POST' as const, path: soapOperationPath(service.name, op.name), operation: null }))),
      describe: (title) => `WSDL "${title}"`,
    }
  },
  nothingToServe: 'the WSDL defines no operations: nothing to serve',
  operations: { by: 'named', pattern: /^\/soap\/[^/#\s]+#[^/#\s]+$/, example: soapOperationPath('Calculator', 'Add') },
  exportDocument: (stored) => stored,
}
