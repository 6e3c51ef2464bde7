// Vercel AI SDK tools over a factgraph client: remember, search and forget, with zod inputs.

import { type Tool, tool } from 'ai';
import { z } from 'zod';

import type { Client } from '../client.js';
import type { DecisionKind, FactStatus, StandingKind } from '../types.js';

export interface FactgraphToolsOptions {
  client: Client;
  /** The scope the tools work on (default: the client's). */
  scope?: string;
  /** Hits a search returns unless the model asks for another number (default 5). */
  topK?: number;
  /** Tags added to every fact the remember tool writes. */
  tags?: string[];
  /** The source recorded on every fact the remember tool writes (default "ai-sdk"). */
  source?: string;
}

const rememberInput = z.object({
  text: z.string().min(1).describe('The fact to remember, as one self-contained sentence.'),
  subject: z.string().min(1).optional().describe('Who or what the fact is about, e.g. "Alice".'),
  predicate: z.string().min(1).optional().describe('The relation, e.g. "lives_in" or "works_at".'),
  object: z.string().min(1).optional().describe('The value, e.g. "Lisbon".'),
  tags: z.array(z.string().min(1)).optional().describe('Labels to filter by later.'),
  importance: z.number().min(0).max(10).optional().describe('0..10; 5 when unsure.'),
});

const searchInput = z.object({
  query: z.string().min(1).describe('What to look for, in natural language.'),
  topK: z.number().int().min(1).max(50).optional().describe('How many facts to return.'),
  thread: z
    .boolean()
    .optional()
    .describe('true: the facts on the topic in the order they were said, for "how did X go" questions.'),
});

const forgetInput = z.object({
  id: z.string().min(1).describe('The id of the fact to forget, as search returned it.'),
  reason: z.string().min(1).optional().describe('Why it is forgotten; kept in the audit trail.'),
});

export type RememberToolInput = z.infer<typeof rememberInput>;
export type SearchToolInput = z.infer<typeof searchInput>;
export type ForgetToolInput = z.infer<typeof forgetInput>;

/** What the remember tool answers the model. */
export interface RememberToolOutput {
  decision: DecisionKind;
  id: string;
  text: string;
  matched: string | null;
  reason: string;
}

/** What the search tool answers the model. */
export interface SearchToolOutput {
  hits: { id: string; text: string; relevance: number; validFrom: string }[];
  standing: { id: string; text: string; kind: StandingKind | null }[];
}

/** What the forget tool answers the model. */
export interface ForgetToolOutput {
  id: string;
  status: FactStatus;
}

// A type, not an interface: the SDK's ToolSet needs the index signature only types get.
export type FactgraphTools = {
  remember: Tool<RememberToolInput, RememberToolOutput>;
  search: Tool<SearchToolInput, SearchToolOutput>;
  forget: Tool<ForgetToolInput, ForgetToolOutput>;
};

/**
 * The memory tools an agent calls: `remember` writes a fact through factgraph's pipeline
 * (duplicates, contradictions and untrusted text are handled there), `search` returns the best
 * facts and the standing instructions and preferences that bear on the query, `forget` hides a
 * fact (kept in its history). Each tool's answer is small JSON the model can read.
 */
export function factgraphTools(options: FactgraphToolsOptions): FactgraphTools {
  const fg = options.scope ? options.client.withScope(options.scope) : options.client;
  const topK = options.topK ?? 5;
  const source = options.source ?? 'ai-sdk';
  return {
    remember: tool({
      description:
        'Remember a fact about the user or the world for later conversations. Write one fact per call.',
      inputSchema: rememberInput,
      execute: async (input, { abortSignal }) => {
        const { tags, ...fact } = input;
        const decision = await fg.remember(
          { ...fact, tags: [...(options.tags ?? []), ...(tags ?? [])], source },
          { signal: abortSignal },
        );
        return {
          decision: decision.kind,
          id: decision.fact.id,
          text: decision.fact.text,
          matched: decision.matched?.id ?? null,
          reason: decision.reason,
        };
      },
    }),
    search: tool({
      description:
        'Search long-term memory. Returns the facts that best answer the query (with ids) and the ' +
        "user's standing instructions and preferences that bear on it.",
      inputSchema: searchInput,
      execute: async ({ query, topK: wanted, thread }, { abortSignal }) => {
        const result = await fg.search(query, { topK: wanted ?? topK, thread: thread ?? false, signal: abortSignal });
        return {
          hits: result.hits.map((hit) => ({
            id: hit.fact.id,
            text: hit.fact.text,
            relevance: round(hit.relevance),
            validFrom: hit.fact.validFrom,
          })),
          standing: result.standing.map((entry) => ({
            id: entry.fact.id,
            text: entry.fact.text,
            kind: entry.fact.standing,
          })),
        };
      },
    }),
    forget: tool({
      description: 'Forget a fact that is wrong or no longer wanted, by its id from search.',
      inputSchema: forgetInput,
      execute: async ({ id, reason }, { abortSignal }) => {
        const fact = await fg.forget(id, { reason: reason ?? 'forgotten by the agent', signal: abortSignal });
        return { id: fact.id, status: fact.status };
      },
    }),
  };
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
