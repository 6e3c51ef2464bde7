// The console's only way to the data: POST /graphql, as any other frontend would.
// The API key lives in sessionStorage only (gone when the tab closes).

const KEY = 'factgraph.console.key';
const SCOPE = 'factgraph.console.scope';

export const session = {
  get key() { return sessionStorage.getItem(KEY) || ''; },
  set key(value) {
    if (value) sessionStorage.setItem(KEY, value); else sessionStorage.removeItem(KEY);
  },
  get scope() { return sessionStorage.getItem(SCOPE) || 'default'; },
  set scope(value) { sessionStorage.setItem(SCOPE, value || 'default'); },
};

/** One or more GraphQL errors, each in words, with the input field it names (if any). */
export class ApiError extends Error {
  constructor(problems) {
    super(problems.map((p) => p.message).join('; '));
    this.problems = problems;
  }
}

function describe(error) {
  const ext = error.extensions || {};
  const field = typeof ext.field === 'string' ? ext.field : null;
  const code = typeof ext.code === 'string' ? ext.code : null;
  let message = String(error.message || 'unknown error');
  if (field && !message.toLowerCase().includes(field.toLowerCase())) {
    message = `${field}: ${message}`;
  }
  return {message, field, code};
}

// A 503 is sent again after its Retry-After (capped), at most this many times.
const RETRIES = 3;
const MAX_RETRY_WAIT = 5;

function headers() {
  const out = {'Content-Type': 'application/json', Accept: 'application/json'};
  const key = session.key;
  if (key) out.Authorization = `Bearer ${key}`;
  return out;
}

/**
 * Run a query or mutation; resolves to `data`, rejects with an ApiError in words. Errors whose
 * code is in `tolerate` only leave their field null.
 */
export async function gql(query, variables = {}, {tolerate = []} = {}) {
  let response;
  // A 503 did nothing (refused before any work: the tenant's share of a busy service, or the
  // database away) and says when to come back: a page that sends a few requests at once
  // tries again rather than showing the refusal, as the clients do.
  for (let attempt = 0; ; attempt += 1) {
    try {
      response = await fetch('/graphql', {
        method: 'POST',
        headers: headers(),
        body: JSON.stringify({query, variables}),
        credentials: 'omit',
      });
    } catch (err) {
      throw new ApiError([{message: `Could not reach the service (${err.message}).`}]);
    }
    const after = response.headers.get('Retry-After');
    const wait = after === null ? NaN : Number(after);
    if (response.status !== 503 || attempt >= RETRIES || !(wait >= 0)) break;
    await new Promise((done) => setTimeout(done, Math.min(wait, MAX_RETRY_WAIT) * 1000));
  }
  let body = null;
  try {
    body = await response.json();
  } catch {
    throw new ApiError([{message: `The service answered HTTP ${response.status} ` +
      `(${response.statusText || 'no reason given'}) without a GraphQL answer.`}]);
  }
  if (body && Array.isArray(body.errors) && body.errors.length) {
    const problems = body.errors.map(describe);
    if (!(body.data && problems.every((p) => tolerate.includes(p.code)))) throw new ApiError(problems);
  }
  if (!response.ok || !body || !body.data) {
    throw new ApiError([{message: `The service answered HTTP ${response.status}.`}]);
  }
  return body.data;
}

/** The fields of a Fact every view shows. */
export const FACT = `id scope partition text subject predicate object tags importance source
  sessionId turn status standing validFrom validTo recordedAt expiredAt metadata`;

/**
 * Several facts by id in one request (aliases over `history`, which a reader may call and
 * which keeps retired rows): id -> fact, unknown ids (NOT_FOUND, their alias null) left out. With `chains`, every row of
 * each fact's supersede chain is included too (id -> [fact, id of the fact asked for]).
 */
export async function factsByIds(scope, ids, {chains = false} = {}) {
  const unique = [...new Set(ids)].slice(0, 100);
  if (!unique.length) return new Map();
  const decls = unique.map((_, i) => `$id${i}: ID!`).join(', ');
  const fields = unique.map((_, i) => `f${i}: history(scope: $scope, id: $id${i}) { ${FACT} }`).join('\n');
  const variables = {scope};
  unique.forEach((id, i) => { variables[`id${i}`] = id; });
  const data = await gql(`query ConsoleFacts($scope: String!, ${decls}) { ${fields} }`, variables,
    {tolerate: ['NOT_FOUND']});
  const out = new Map();
  unique.forEach((id, i) => {
    const rows = data[`f${i}`] || [];
    if (chains) {
      for (const row of rows) if (!out.has(row.id)) out.set(row.id, [row, id]);
      return;
    }
    const row = rows.find((f) => f.id === id);
    if (row) out.set(id, row);
  });
  return out;
}

/** Entities' display names ("Carol", where the id holds the canonical "carol"), by id; an
 * unknown id is left out. One request, aliases over `node`. */
export async function entityNames(scope, ids) {
  const unique = [...new Set(ids)].slice(0, 100);
  if (!unique.length) return new Map();
  const decls = unique.map((_, i) => `$id${i}: ID!`).join(', ');
  const fields = unique.map((_, i) => `e${i}: node(scope: $scope, id: $id${i}, neighbours: false) { entity { name } }`).join('\n');
  const variables = {scope};
  unique.forEach((id, i) => { variables[`id${i}`] = id; });
  const data = await gql(`query ConsoleEntityNames($scope: String!, ${decls}) { ${fields} }`, variables);
  const out = new Map();
  unique.forEach((id, i) => {
    const node = data[`e${i}`];
    if (node && node.entity) out.set(id, node.entity.name);
  });
  return out;
}
