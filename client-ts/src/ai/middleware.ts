// A language-model middleware (wrapLanguageModel) that gives the model what factgraph holds
// for the conversation, and remembers each exchange once the model has answered.

import type { LanguageModelMiddleware } from 'ai';

import type { Client } from '../client.js';
import type { Fact, FactInput } from '../types.js';

type CallParams = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params'];
type Prompt = CallParams['prompt'];
type GenerateResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapGenerate']>>>;
type StreamResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapStream']>>>;
type StreamPart = StreamResult['stream'] extends ReadableStream<infer Part> ? Part : never;

export interface FactgraphMiddlewareOptions {
  client: Client;
  /** The scope to read and write (default: the client's). */
  scope?: string;
  /** Hits for the last user message put in the prompt (default 5; 0: none). */
  topK?: number;
  /** Leave out hits whose relevance is below this (0..1; default 0). */
  minScore?: number;
  /** Standing instructions and preferences put in the prompt (default 20; 0: none). */
  standingLimit?: number;
  /** Remember the user's message and the answer after each answer (default true). */
  remember?: boolean;
  /** Recorded on the remembered exchange: the conversation it belongs to. */
  sessionId?: string;
  /** The source recorded on remembered messages (default "ai-sdk"). */
  source?: string;
  /** Called with an error of factgraph's (the model call goes on without memory). Default: rethrow. */
  onError?: (error: unknown) => void;
}

/** What the middleware put in a prompt, in the system message it adds. */
export const MEMORY_HEADER = 'Long-term memory (factgraph)';

/**
 * Before each model call: the scope's standing statements and the best hits for the last user
 * message, as one system message after the call's own. After an answer with text: the user's
 * message (subject "user") and the answer (subject "assistant") are remembered, so a later
 * conversation finds them. A tool-calling step (no text) remembers nothing; its final step does.
 */
export function factgraphMiddleware(options: FactgraphMiddlewareOptions): LanguageModelMiddleware {
  const fg = options.scope ? options.client.withScope(options.scope) : options.client;
  const topK = options.topK ?? 5;
  const standingLimit = options.standingLimit ?? 20;
  const source = options.source ?? 'ai-sdk';
  const failed = (error: unknown): void => {
    if (!options.onError) throw error;
    options.onError(error);
  };

  const recall = async (params: CallParams): Promise<CallParams> => {
    const asked = lastUserText(params.prompt);
    if (!asked) return params;
    const signal = params.abortSignal;
    let standing: Fact[] = [];
    let hits: Fact[] = [];
    try {
      [standing, hits] = await Promise.all([
        standingLimit > 0 ? fg.standing({ limit: standingLimit, signal }) : Promise.resolve([]),
        topK > 0
          ? fg
              .search(asked, { topK, minScore: options.minScore ?? 0, standingLimit: 0, signal })
              .then((result) => result.hits.map((hit) => hit.fact))
          : Promise.resolve([]),
      ]);
    } catch (error) {
      failed(error);
      return params;
    }
    const shown = new Set(standing.map((fact) => fact.id));
    hits = hits.filter((fact) => !shown.has(fact.id));
    if (standing.length === 0 && hits.length === 0) return params;
    const lines = [`${MEMORY_HEADER}.`];
    if (standing.length > 0) {
      lines.push("The user's standing instructions and preferences (follow them):");
      lines.push(...standing.map((fact) => `- ${fact.text}`));
    }
    if (hits.length > 0) {
      lines.push('What you remember that may bear on the last message:');
      lines.push(...hits.map((fact) => `- ${fact.text}${fact.validFrom ? ` (${fact.validFrom.slice(0, 10)})` : ''}`));
    }
    const memory = { role: 'system' as const, content: lines.join('\n') };
    const leading = params.prompt.findIndex((message) => message.role !== 'system');
    const at = leading === -1 ? params.prompt.length : leading;
    return { ...params, prompt: [...params.prompt.slice(0, at), memory, ...params.prompt.slice(at)] };
  };

  const keep = async (params: CallParams, answer: string): Promise<void> => {
    const asked = lastUserText(params.prompt);
    if (options.remember === false || !asked || !answer.trim()) return;
    const turn = 2 * (params.prompt.filter((message) => message.role === 'user').length - 1);
    const said = (text: string, subject: string, at: number): FactInput => ({
      text,
      subject,
      source,
      tags: subject === 'assistant' ? ['role:assistant'] : [],
      ...(options.sessionId ? { sessionId: options.sessionId, turn: at } : {}),
    });
    try {
      await fg.rememberMany([said(asked, 'user', turn), said(answer, 'assistant', turn + 1)], {
        signal: params.abortSignal,
      });
    } catch (error) {
      failed(error);
    }
  };

  return {
    specificationVersion: 'v4',
    transformParams: async ({ params }) => recall(params),
    wrapGenerate: async ({ doGenerate, params }): Promise<GenerateResult> => {
      const result = await doGenerate();
      const answer = result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
      await keep(params, answer);
      return result;
    },
    wrapStream: async ({ doStream, params }): Promise<StreamResult> => {
      const { stream, ...rest } = await doStream();
      let answer = '';
      const watch = new TransformStream<StreamPart, StreamPart>({
        transform(part, controller) {
          if (part.type === 'text-delta') answer += part.delta;
          controller.enqueue(part);
        },
        // The stream ends once the exchange is stored, so the next call can find it.
        flush: () => keep(params, answer),
      });
      return { stream: stream.pipeThrough(watch), ...rest };
    },
  };
}

/** The text of the last user message of a prompt; null when there is none. */
function lastUserText(prompt: Prompt): string | null {
  for (let index = prompt.length - 1; index >= 0; index -= 1) {
    const message = prompt[index];
    if (message?.role !== 'user') continue;
    const text = message.content
      .flatMap((part) => (part.type === 'text' ? [part.text] : []))
      .join('\n')
      .trim();
    return text || null;
  }
  return null;
}
