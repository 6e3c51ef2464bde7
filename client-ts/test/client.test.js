// The client against the suite's real server (Neo4j and the model behind it): every operation,
// the errors a caller catches, the AbortSignal, and the bounded 503 retry.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { AuthError, Client, FactgraphError, NotFoundError, UnavailableError, ValidationError } from 'factgraph';

import { scopes, standIn, url } from './helpers.js';

const fg = new Client({ url, scope: scopes.client });

describe('writing and reading facts', () => {
  test('remember says what the pipeline decided, and a contradiction supersedes', async () => {
    const first = await fg.remember({ text: 'Alice works at Acme', subject: 'Alice', predicate: 'works_at', object: 'Acme' });
    assert.equal(first.kind, 'INSERT');
    assert.equal(first.fact.status, 'ACTIVE');
    const again = await fg.remember('Alice works at Acme');
    assert.equal(again.kind, 'DEDUP');
    assert.equal(again.fact.id, first.fact.id);
    const moved = await fg.remember({ text: 'Alice works at Globex', subject: 'Alice', predicate: 'works_at', object: 'Globex' });
    assert.equal(moved.kind, 'SUPERSEDE');
    assert.equal(moved.matched?.id, first.fact.id);
    const chain = await fg.history(moved.fact.id);
    assert.deepEqual(chain.map((fact) => [fact.text, fact.status]), [
      ['Alice works at Acme', 'SUPERSEDED'],
      ['Alice works at Globex', 'ACTIVE'],
    ]);
    assert.ok(chain[0].validTo);
    assert.equal((await fg.get(first.fact.id))?.status, 'SUPERSEDED'); // kept, and said so
    assert.ok(fg.bookmark, 'a write leaves the bookmark read-your-writes needs');
  });

  test('rememberMany answers one decision per fact, in order, and one bad fact refuses all', async () => {
    const decisions = await fg.rememberMany(['Bo plays the cello', { text: 'Bo lives in Ghent', tags: ['home'] }], {
      pipeline: false,
    });
    assert.deepEqual(decisions.map((d) => [d.kind, d.fact.text]), [
      ['INSERT', 'Bo plays the cello'],
      ['INSERT', 'Bo lives in Ghent'],
    ]);
    assert.deepEqual(decisions[1].fact.tags, ['home']);
    await assert.rejects(fg.rememberMany(['Bo likes figs', { text: '   ' }]), (error) => {
      assert.ok(error instanceof ValidationError);
      assert.equal(error.code, 'BAD_USER_INPUT');
      assert.match(error.field, /facts\[1\]\.text/);
      return true;
    });
    const page = await fg.timeline({ first: 50 });
    assert.ok(!page.items.some((fact) => fact.text === 'Bo likes figs'), 'nothing of a refused batch is written');
  });

  test('timeline pages newest first and forget hides a fact but keeps its history', async () => {
    const scoped = fg.withScope(scopes.timeline);
    const written = [];
    for (const [day, text] of ['Day one: kickoff', 'Day two: design review', 'Day three: first demo'].entries()) {
      written.push((await scoped.remember({ text, validFrom: new Date(Date.UTC(2026, 0, day + 1)).toISOString() })).fact);
    }
    const first = await scoped.timeline({ first: 2 });
    assert.deepEqual(first.items.map((f) => f.text), ['Day three: first demo', 'Day two: design review']);
    assert.ok(first.nextCursor);
    const rest = await scoped.timeline({ first: 2, after: first.nextCursor });
    assert.deepEqual(rest.items.map((f) => f.text), ['Day one: kickoff']);
    assert.equal(rest.nextCursor, null);
    const since = await scoped.timeline({ since: new Date(Date.UTC(2026, 0, 2)) });
    assert.equal(since.items.length, 2);

    const gone = await scoped.forget(written[1].id, { reason: 'cancelled' });
    assert.equal(gone.status, 'FORGOTTEN');
    const after = await scoped.timeline();
    assert.deepEqual(after.items.map((f) => f.text), ['Day three: first demo', 'Day one: kickoff']);
    assert.equal((await scoped.history(written[1].id))[0].status, 'FORGOTTEN');
  });

  test('a quarantined fact is validated or rejected', async () => {
    const scoped = fg.withScope(scopes.review);
    const held = await scoped.remember({ text: 'The wiki says the VPN password rotates monthly', source: 'web' });
    const other = await scoped.remember({ text: 'A forum post says the office closes at noon', trusted: false });
    assert.deepEqual([held.kind, other.kind], ['QUARANTINE', 'QUARANTINE']);
    assert.equal(await scoped.get(held.fact.id), null);
    assert.equal((await scoped.get(held.fact.id, { includeQuarantined: true }))?.status, 'QUARANTINED');
    const queue = await scoped.reviewQueue();
    assert.deepEqual(new Set(queue.items.map((h) => h.fact.id)), new Set([held.fact.id, other.fact.id]));
    assert.ok(queue.items.every((h) => h.reason));

    const promoted = await scoped.validate(held.fact.id);
    assert.equal(promoted.fact.status, 'ACTIVE');
    const refused = await scoped.reject(other.fact.id, { reason: 'unverified' });
    assert.equal(refused.status, 'FORGOTTEN');
    assert.deepEqual((await scoped.reviewQueue()).items, []);
  });
});

describe('search', () => {
  const scoped = fg.withScope(scopes.search);
  const story = [
    ['We started building the auth for the admin console', 1, 0],
    ['The auth for the admin console needed a second factor, so we added TOTP', 5, 1],
    ['The admin console auth shipped after the security review', 9, 2],
  ];
  const said = {};

  test('setup: a project with a story and standing statements', async () => {
    const decisions = await scoped.rememberMany([
      ...story.map(([text, day, turn]) => ({
        text,
        validFrom: new Date(Date.UTC(2026, 2, day)).toISOString(),
        sessionId: 's1',
        turn,
      })),
      'Always include type hints in Python code.',
      'I prefer PostgreSQL over MySQL for new projects.',
      'The office plants need watering twice a week',
      'Lunch on Friday is at the Thai place near the station',
    ]);
    for (const decision of decisions) said[decision.fact.text] = decision.fact;
    assert.equal(said['Always include type hints in Python code.'].standing, 'INSTRUCTION');
    assert.equal(said['I prefer PostgreSQL over MySQL for new projects.'].standing, 'PREFERENCE');
  });

  test('hits come best first with their relevance, and minScore leaves out the unlikely', async () => {
    const result = await scoped.search('where is lunch on Friday?', { topK: 3 });
    assert.equal(result.hits[0].fact.text, 'Lunch on Friday is at the Thai place near the station');
    const scores = result.hits.map((hit) => hit.score);
    assert.deepEqual(scores, [...scores].sort((a, b) => b - a));
    assert.ok(result.hits.every((hit) => hit.relevance >= 0 && hit.relevance <= 1));
    // A floor between the best hit's relevance and the worst's keeps the one and drops the other.
    const best = Math.max(...result.hits.map((hit) => hit.relevance));
    assert.equal(result.hits[0].relevance, best);
    const worst = Math.min(...result.hits.map((hit) => hit.relevance));
    assert.ok(best > worst, 'the lunch fact answers better than the others');
    const floor = (best + worst) / 2;
    const strict = await scoped.search('where is lunch on Friday?', { topK: 3, minScore: floor });
    assert.equal(strict.hits[0].fact.text, 'Lunch on Friday is at the Thai place near the station');
    assert.ok(strict.hits.length < result.hits.length);
    assert.ok(strict.hits.every((hit) => hit.relevance >= floor));
  });

  test('thread returns the topic in the order it was said', async () => {
    const result = await scoped.search('how did the auth work on the admin console go?', { topK: 3, thread: true });
    assert.deepEqual(result.hits.map((hit) => hit.fact.text), story.map(([text]) => text));
  });

  test('the standing list comes beside the hits, capped by standingLimit', async () => {
    const result = await scoped.search('write a function that parses a CSV file');
    assert.equal(result.standing[0]?.fact.text, 'Always include type hints in Python code.');
    assert.ok(result.standing.every((entry) => entry.fact.standing && entry.similarity <= 1));
    const none = await scoped.search('write a function that parses a CSV file', { standingLimit: 0 });
    assert.deepEqual(none.standing, []);
    const all = await scoped.standing();
    assert.deepEqual(new Set(all.map((fact) => fact.text)), new Set([
      'Always include type hints in Python code.',
      'I prefer PostgreSQL over MySQL for new projects.',
    ]));
    const preferences = await scoped.standing({ kind: 'PREFERENCE' });
    assert.deepEqual(preferences.map((fact) => fact.text), ['I prefer PostgreSQL over MySQL for new projects.']);
  });
});

describe('errors', () => {
  test('bad input is a ValidationError naming the field; nothing is written', async () => {
    await assert.rejects(fg.search('tea', { topK: 0 }), (error) => {
      assert.ok(error instanceof ValidationError && error instanceof FactgraphError);
      assert.equal(error.code, 'BAD_USER_INPUT');
      assert.match(error.field, /topK|top_k/);
      return true;
    });
    await assert.rejects(fg.remember({ text: 'x', importance: 11 }), (error) => {
      assert.ok(error instanceof ValidationError);
      assert.match(error.field, /importance/);
      return true;
    });
  });

  test('an unknown id is a NotFoundError', async () => {
    await assert.rejects(fg.forget('f_nothing_here'), (error) => {
      assert.ok(error instanceof NotFoundError);
      assert.equal(error.code, 'NOT_FOUND');
      return true;
    });
    await assert.rejects(fg.history('f_nothing_here'), NotFoundError);
  });

  test('a scope is required', () => {
    assert.throws(() => new Client({ url, scope: '  ' }), TypeError);
  });
});

describe('API key, scope and abort', () => {
  const secured = process.env.FACTGRAPH_SECURED_URL;

  test('the key is sent as a bearer token and the scope it allows is enforced', { skip: !secured }, async () => {
    const apiKey = process.env.FACTGRAPH_KEY;
    const keyed = new Client({ url: secured, scope: scopes.keyed, apiKey });
    assert.equal((await keyed.remember('keyed write')).kind, 'INSERT');
    assert.equal((await keyed.timeline()).items[0].text, 'keyed write');
    await assert.rejects(keyed.withScope(scopes.client).timeline(), (error) => {
      assert.ok(error instanceof AuthError);
      assert.equal(error.code, 'FORBIDDEN');
      return true;
    });
    await assert.rejects(new Client({ url: secured, scope: scopes.keyed }).remember('no key'), (error) => {
      assert.ok(error instanceof AuthError);
      assert.equal(error.code, 'UNAUTHENTICATED');
      assert.equal(error.status, 401);
      return true;
    });
  });

  test('headers carry the key, the scope and the latest bookmark', async () => {
    const server = await standIn(() => ({
      status: 200,
      headers: { 'x-neo4j-bookmark': 'mark-1' },
      json: { data: { forget: { id: 'f1', status: 'FORGOTTEN' } } },
    }));
    try {
      const client = new Client({ url: server.url, scope: 'team', apiKey: 'fg_secret', headers: { 'X-Request-ID': 'r1' } });
      await client.forget('f1');
      await client.forget('f1');
      const [first, second] = server.seen;
      assert.equal(first.headers.authorization, 'Bearer fg_secret');
      assert.equal(first.headers['x-scope'], 'team');
      assert.equal(first.headers['x-request-id'], 'r1');
      assert.equal(first.headers['x-neo4j-bookmark'], undefined);
      assert.equal(second.headers['x-neo4j-bookmark'], 'mark-1');
      assert.deepEqual(first.body.variables, { scope: 'team', id: 'f1', reason: 'forgotten' });
      assert.match(first.body.query, /mutation Forget/);
    } finally {
      await server.close();
    }
  });

  test('a request slower than the timeout is abandoned', async () => {
    const slow = await standIn(() => ({ status: 200, delay: 2000, json: { data: { standing: [] } } }));
    try {
      const started = Date.now();
      await assert.rejects(new Client({ url: slow.url, scope: 's', timeout: 100 }).standing(), { name: 'TimeoutError' });
      assert.ok(Date.now() - started < 1500);
    } finally {
      await slow.close();
    }
  });

  test('an aborted signal cancels the call', async () => {
    await assert.rejects(fg.search('tea', { signal: AbortSignal.abort() }), { name: 'AbortError' });
  });
});

describe('503 with Retry-After', () => {
  const busy = { status: 503, headers: { 'retry-after': '0' }, json: { errors: [{ message: 'busy', extensions: { code: 'OVERLOADED' } }] } };
  const ok = { status: 200, json: { data: { standing: [] } } };

  test('is sent again after Retry-After, a bounded number of times', async () => {
    const recovering = await standIn((call) => (call <= 2 ? busy : ok));
    try {
      assert.deepEqual(await new Client({ url: recovering.url, scope: 's', retries: 3 }).standing(), []);
      assert.equal(recovering.seen.length, 3);
    } finally {
      await recovering.close();
    }
    const down = await standIn(() => busy);
    try {
      await assert.rejects(new Client({ url: down.url, scope: 's', retries: 2 }).standing(), (error) => {
        assert.ok(error instanceof UnavailableError);
        assert.equal(error.code, 'OVERLOADED');
        assert.equal(error.status, 503);
        return true;
      });
      assert.equal(down.seen.length, 3);
    } finally {
      await down.close();
    }
  });

  test('the wait is capped by maxRetryWait and ends when the signal aborts', async () => {
    const slow = await standIn(() => ({ ...busy, headers: { 'retry-after': '3600' } }));
    try {
      const client = new Client({ url: slow.url, scope: 's', retries: 1, maxRetryWait: 0.05 });
      const started = Date.now();
      await assert.rejects(client.standing(), UnavailableError);
      assert.ok(Date.now() - started < 5000);
      const patient = new Client({ url: slow.url, scope: 's', retries: 5 });
      await assert.rejects(patient.standing({ signal: AbortSignal.timeout(200) }), { name: 'TimeoutError' });
    } finally {
      await slow.close();
    }
  });
});
