// The examples of docs/typescript.md, type-checked against the built package's declarations
// (tsc -p test, in tests/test_typescript_client.py); never run: `yourModel` answers nothing.
import { generateText, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { Client, type Decision, type SearchHit, ValidationError } from 'factgraph';
import { factgraphMiddleware, factgraphTools, type SearchToolOutput } from 'factgraph/ai';

const yourModel = new MockLanguageModelV4();

export async function client(): Promise<void> {
  const fg = new Client({ url: 'http://127.0.0.1:8000', scope: 'alice', apiKey: 'fgk_...', retries: 3, maxRetryWait: 30 });
  const decision: Decision = await fg.remember({ text: 'Alice works at Acme', subject: 'Alice', predicate: 'works_at', object: 'Acme' });
  const kind: 'INSERT' | 'DEDUP' | 'MERGE' | 'SUPERSEDE' | 'QUARANTINE' = decision.kind;
  await fg.rememberMany(['Alice likes tea', { text: 'Alice plays chess', tags: ['hobby'] }], { pipeline: false });
  const result = await fg.search('write a function that parses a CSV file', { topK: 5, standingLimit: 3, minScore: 0.3 });
  const hits: SearchHit[] = result.hits;
  for (const { fact, relevance } of hits) console.log(kind, relevance.toFixed(2), fact.text);
  for (const { fact } of result.standing) console.log('honour:', fact.text, fact.standing);
  await fg.search('how did the auth work go?', { topK: 10, thread: true, signal: AbortSignal.timeout(5000) });
  await fg.history(decision.fact.id);
  const page = await fg.timeline({ first: 20, sessionId: 'chat-1', since: new Date() });
  console.log(page.items.length, page.nextCursor);
  await fg.standing({ kind: 'PREFERENCE' });
  await fg.forget(decision.fact.id, { reason: 'wrong' });
  await fg.validate(decision.fact.id);
  await fg.reject(decision.fact.id);
  await fg.withScope('bob').reviewQueue({ first: 5 });
  try {
    await fg.rememberMany(['Bo likes figs', { text: '   ' }]);
  } catch (error) {
    if (error instanceof ValidationError) console.log(error.code, error.field, error.status);
  }
}

export async function ai(): Promise<void> {
  const client = new Client({ url: 'http://127.0.0.1:8000', scope: 'default' });
  const tools = factgraphTools({ client, scope: 'user-42' });
  const { text, steps } = await generateText({
    model: yourModel,
    tools,
    stopWhen: stepCountIs(5),
    prompt: 'Remember that I am allergic to peanuts, then suggest a snack.',
  });
  for (const call of steps.flatMap((step) => step.toolResults)) {
    if (call.toolName === 'search') console.log((call.output as SearchToolOutput).hits.length);
  }
  const model = wrapLanguageModel({
    model: yourModel,
    middleware: factgraphMiddleware({ client, scope: 'user-42', sessionId: 'chat-7' }),
  });
  const later = streamText({ model, prompt: 'Where does my sister live now?' });
  console.log(text, await later.text);
}
