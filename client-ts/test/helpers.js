// What the tests share: the suite's server (FACTGRAPH_URL), their scopes (FACTGRAPH_SCOPES, made
// and dropped by tests/test_typescript_client.py), and a stand-in server for what the real one
// only does under load (503 with Retry-After).
import { createServer } from 'node:http';

export const url = required('FACTGRAPH_URL');
export const scopes = JSON.parse(required('FACTGRAPH_SCOPES'));

function required(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run these tests through tests/test_typescript_client.py`);
  return value;
}

/** A server on 127.0.0.1 that answers each request with `answer(request, body, calls)`. */
export async function standIn(answer) {
  const seen = [];
  const server = createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    seen.push({ headers: request.headers, body: body ? JSON.parse(body) : null });
    const { status, headers = {}, json, delay = 0 } = answer(seen.length);
    if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(json));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections(); // a delayed answer still pending is not waited for
      }),
  };
}
