// factgraph/ai with the AI SDK's own mock model (ai/test): scripted tool calls that write to and
// read from the suite's real server, and the middleware that fills a prompt from memory.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { generateText, simulateReadableStream, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { Client } from 'factgraph';
import { factgraphMiddleware, factgraphTools, MEMORY_HEADER } from 'factgraph/ai';

import { scopes, url } from './helpers.js';

const client = new Client({ url, scope: scopes.client });
const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};
const finish = (unified) => ({ unified, raw: undefined });

/** A generate step that calls one tool. */
const callTool = (toolName, input) => ({
  content: [{ type: 'tool-call', toolCallId: `call-${toolName}`, toolName, input: JSON.stringify(input) }],
  finishReason: finish('tool-calls'),
  usage,
  warnings: [],
});
const answer = (text) => ({ content: [{ type: 'text', text }], finishReason: finish('stop'), usage, warnings: [] });

/** A stream step: a tool call, or text in two deltas. */
const streamed = (parts) => ({ stream: simulateReadableStream({ chunks: parts, initialDelayInMs: null, chunkDelayInMs: null }) });
const streamTool = (toolName, input) =>
  streamed([
    { type: 'tool-call', toolCallId: `call-${toolName}`, toolName, input: JSON.stringify(input) },
    { type: 'finish', finishReason: finish('tool-calls'), usage },
  ]);
const streamText_ = (text) =>
  streamed([
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: text.slice(0, 10) },
    { type: 'text-delta', id: 't', delta: text.slice(10) },
    { type: 'text-end', id: 't' },
    { type: 'finish', finishReason: finish('stop'), usage },
  ]);

/** The output of the last tool result in a prompt the model was sent. */
function lastToolOutput(prompt) {
  const results = prompt.filter((m) => m.role === 'tool').flatMap((m) => m.content);
  return results.at(-1).output.value;
}

function systemText(prompt) {
  return prompt.filter((m) => m.role === 'system').map((m) => m.content).join('\n');
}

describe('factgraphTools', () => {
  const tools = factgraphTools({ client, scope: scopes.tools });
  const fg = client.withScope(scopes.tools);

  test('have zod input schemas the SDK checks', async () => {
    assert.deepEqual(Object.keys(tools).sort(), ['forget', 'remember', 'search']);
    assert.equal(tools.remember.inputSchema.safeParse({ text: '' }).success, false);
    assert.equal(tools.search.inputSchema.safeParse({ query: 'tea', topK: 3 }).success, true);
    assert.equal(tools.forget.inputSchema.safeParse({}).success, false);
  });

  test('generateText: the model remembers a fact, then searches and answers from it', async () => {
    const model = new MockLanguageModelV4({
      doGenerate: async ({ prompt }) => {
        const step = prompt.filter((m) => m.role === 'tool').length;
        if (step === 0) return callTool('remember', { text: 'Carol is allergic to peanuts', subject: 'Carol', tags: ['health'] });
        if (step === 1) return callTool('search', { query: 'what is Carol allergic to?', topK: 3 });
        return answer(`You told me: ${lastToolOutput(prompt).hits[0].text}.`);
      },
    });
    const result = await generateText({
      model,
      tools,
      stopWhen: stepCountIs(5),
      prompt: 'Remember that Carol is allergic to peanuts, then tell me what she is allergic to.',
    });
    const [remembered] = result.steps[0].toolResults;
    assert.equal(remembered.output.decision, 'INSERT');
    const [searched] = result.steps[1].toolResults;
    assert.equal(searched.output.hits[0].id, remembered.output.id);
    assert.equal(result.text, 'You told me: Carol is allergic to peanuts.');
    // On the server, as the tool wrote it.
    const stored = await fg.get(remembered.output.id);
    assert.deepEqual([stored.subject, stored.tags, stored.source], ['Carol', ['health'], 'ai-sdk']);
  });

  test('streamText: the model searches, forgets what it found, and the server forgot it', async () => {
    const target = await fg.remember('Carol drives a red scooter');
    const model = new MockLanguageModelV4({
      doStream: async ({ prompt }) => {
        const step = prompt.filter((m) => m.role === 'tool').length;
        if (step === 0) return streamTool('search', { query: 'what does Carol drive?' });
        if (step === 1) return streamTool('forget', { id: lastToolOutput(prompt).hits[0].id, reason: 'sold it' });
        return streamText_(`Forgotten: ${lastToolOutput(prompt).status}`);
      },
    });
    const result = streamText({ model, tools, stopWhen: stepCountIs(5), prompt: 'Carol sold her scooter; forget it.' });
    assert.equal(await result.text, 'Forgotten: FORGOTTEN');
    const steps = await result.steps;
    assert.equal(steps[0].toolResults[0].output.hits[0].id, target.fact.id);
    assert.equal(await fg.get(target.fact.id), null);
    const [kept] = await fg.history(target.fact.id);
    assert.equal(kept.status, 'FORGOTTEN');
  });

  test("a refusal reaches the model as a tool error with the server's code", async () => {
    const model = new MockLanguageModelV4({
      doGenerate: async ({ prompt }) =>
        prompt.some((m) => m.role === 'tool') ? answer('ok') : callTool('forget', { id: 'f_missing' }),
    });
    const result = await generateText({ model, tools, stopWhen: stepCountIs(3), prompt: 'forget f_missing' });
    const errors = result.steps[0].content.filter((part) => part.type === 'tool-error');
    assert.equal(errors.length, 1);
    assert.match(String(errors[0].error), /NOT_FOUND/);
  });
});

describe('factgraphMiddleware', () => {
  const fg = client.withScope(scopes.middleware);

  test('fills the prompt from memory and remembers each exchange for the next call', async () => {
    const instruction = await fg.remember('From now on, answer in French please.');
    assert.equal(instruction.fact.standing, 'INSTRUCTION');
    const middleware = factgraphMiddleware({ client, scope: scopes.middleware, sessionId: 'chat-1' });

    // First call (generateText): the standing instruction is in the prompt.
    const first = new MockLanguageModelV4({ doGenerate: answer('Félicitations à Dana pour son arrivée à Porto !') });
    const said = await generateText({
      model: wrapLanguageModel({ model: first, middleware }),
      system: 'You are a helpful assistant.',
      prompt: 'My sister Dana just moved to Porto.',
    });
    assert.equal(said.text, 'Félicitations à Dana pour son arrivée à Porto !');
    const firstPrompt = first.doGenerateCalls[0].prompt;
    assert.equal(firstPrompt[0].content, 'You are a helpful assistant.'); // the call's own first
    assert.ok(firstPrompt[1].content.startsWith(MEMORY_HEADER));
    assert.match(firstPrompt[1].content, /- From now on, answer in French please\./);
    assert.equal(firstPrompt.at(-1).role, 'user');

    // The exchange was remembered as a transcript: the user's words, then the answer.
    const page = await fg.timeline({ sessionId: 'chat-1' });
    assert.deepEqual(
      page.items.map((fact) => [fact.subject, fact.text, fact.turn]).sort((a, b) => a[2] - b[2]),
      [
        ['user', 'My sister Dana just moved to Porto.', 0],
        ['assistant', 'Félicitations à Dana pour son arrivée à Porto !', 1],
      ],
    );

    // Second call (streamText): its prompt holds what the first call remembered.
    const second = new MockLanguageModelV4({ doStream: async () => streamText_('Dana habite à Porto.') });
    const streamedAnswer = streamText({
      model: wrapLanguageModel({ model: second, middleware }),
      messages: [
        { role: 'user', content: 'My sister Dana just moved to Porto.' },
        { role: 'assistant', content: 'Félicitations à Dana pour son arrivée à Porto !' },
        { role: 'user', content: 'Where does my sister live now?' },
      ],
    });
    assert.equal(await streamedAnswer.text, 'Dana habite à Porto.');
    const memory = systemText(second.doStreamCalls[0].prompt);
    assert.match(memory, /- From now on, answer in French please\./);
    assert.match(memory, /- My sister Dana just moved to Porto\./);
    const later = await fg.timeline({ sessionId: 'chat-1' });
    assert.deepEqual(
      later.items.filter((fact) => fact.turn >= 2).map((fact) => [fact.subject, fact.text, fact.turn]).sort((a, b) => a[2] - b[2]),
      [
        ['user', 'Where does my sister live now?', 2],
        ['assistant', 'Dana habite à Porto.', 3],
      ],
    );
  });

  test('a tool-calling step remembers nothing; its final answer does', async () => {
    const scoped = client.withScope(scopes.steps);
    const model = new MockLanguageModelV4({
      doGenerate: async ({ prompt }) =>
        prompt.some((m) => m.role === 'tool') ? answer('Noted.') : callTool('search', { query: 'anything' }),
    });
    await generateText({
      model: wrapLanguageModel({ model, middleware: factgraphMiddleware({ client, scope: scopes.steps }) }),
      tools: factgraphTools({ client, scope: scopes.steps }),
      stopWhen: stepCountIs(3),
      prompt: 'Please note that the build server is called Orion.',
    });
    const page = await scoped.timeline();
    assert.deepEqual(page.items.map((fact) => fact.subject).sort(), ['assistant', 'user']);
  });
});
