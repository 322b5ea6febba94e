/** A subscribe operation whose answer calls back the URL the request names, in four ways. */
export const SPEC = {
  openapi: '3.0.3',
  info: { title: 'Callbacks', version: '1' },
  paths: {
    '/subscribe': {
      post: {
        operationId: 'subscribe',
        parameters: [{ name: 'cb', in: 'query', schema: { type: 'string' } }],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { type: 'object', required: ['callbackUrl'], properties: { callbackUrl: { type: 'string' }, id: { type: 'string' } } } } },
        },
        responses: {
          '201': { description: 'subscribed', content: { 'application/json': { example: { id: 'sub-7' } } } },
          '400': { description: 'refused' },
        },
        callbacks: {
          onEvent: {
            '{$request.body#/callbackUrl}': {
              post: {
                parameters: [{ name: 'X-Event-Kind', in: 'header', schema: { type: 'string' }, example: 'created' }],
                requestBody: {
                  content: {
                    'application/json': {
                      schema: {
                        type: 'object',
                        required: ['event', 'count'],
                        properties: { event: { type: 'string', enum: ['created'] }, count: { type: 'integer', minimum: 3, maximum: 3 } },
                      },
                    },
                  },
                },
                responses: { '200': { description: 'ok' } },
              },
            },
          },
          onDone: {
            '{$request.query.cb}/done/{$response.body#/id}': {
              put: {
                requestBody: { content: { 'application/json': { example: { done: true } } } },
                responses: { '204': { description: 'ok' } },
              },
            },
          },
        },
      },
    },
  },
}
