// The factgraph client: every operation of the GraphQL API, typed from schema.graphql.

import {
  FactDocument,
  ForgetDocument,
  HistoryDocument,
  RejectDocument,
  RememberDocument,
  RememberManyDocument,
  ReviewQueueDocument,
  SearchDocument,
  StandingDocument,
  SupersedeDocument,
  TimelineDocument,
  ValidateDocument,
} from './generated/graphql.js';
import { type Document, Transport } from './transport.js';
import type {
  CallOptions,
  Decision,
  Fact,
  FactInput,
  HeldFact,
  Page,
  SearchOptionsInput,
  SearchResult,
  StandingKind,
} from './types.js';

export interface ClientOptions {
  /** The service's base URL, e.g. http://127.0.0.1:8000 (the client posts to /graphql). */
  url: string;
  /** The scope every call works on; `withScope` gives a client for another. */
  scope: string;
  /** Sent as `Authorization: Bearer <key>`; not needed on a loopback server without keys. */
  apiKey?: string | undefined;
  /** How many times a 503 is sent again (default 3). */
  retries?: number | undefined;
  /** The longest wait, in seconds, before sending a 503 again (default 30). */
  maxRetryWait?: number | undefined;
  /** Milliseconds one request may take before it is abandoned with a TimeoutError (default: none). */
  timeout?: number | undefined;
  /** Extra headers for every request. */
  headers?: Record<string, string> | undefined;
  /** A fetch of your own (default: the global one). */
  fetch?: typeof fetch | undefined;
}

export interface RememberOptions extends CallOptions {
  /** false: the straight-through path (validation and exact dedup only). */
  pipeline?: boolean | undefined;
}

export type SearchOptions = SearchOptionsInput & CallOptions;

export interface TimelineOptions extends CallOptions {
  first?: number;
  after?: string | null;
  partition?: string | null;
  sessionId?: string | null;
  /** Inclusive, valid time (ISO string or Date). */
  since?: string | Date | null;
  /** Exclusive, valid time (ISO string or Date). */
  until?: string | Date | null;
}

export interface ReasonOptions extends CallOptions {
  /** Kept in the audit trail. */
  reason?: string;
}

/**
 * A client of one scope. Every method sends one GraphQL operation, takes an AbortSignal, and
 * throws a FactgraphError subclass with the server's code and field when refused.
 *
 * ```ts
 * const fg = new Client({ url: 'http://127.0.0.1:8000', scope: 'alice' });
 * await fg.remember('Alice lives in Lisbon');
 * console.log((await fg.search('where does Alice live?')).hits[0]?.fact.text);
 * ```
 */
export class Client {
  readonly scope: string;
  private readonly transport: Transport;

  constructor(options: ClientOptions);
  /** @internal */
  constructor(options: ClientOptions, transport: Transport);
  constructor(options: ClientOptions, transport?: Transport) {
    if (typeof options.scope !== 'string' || !options.scope.trim()) {
      throw new TypeError('scope must be a non-empty string');
    }
    this.scope = options.scope;
    this.transport =
      transport ??
      new Transport({
        url: options.url,
        apiKey: options.apiKey,
        retries: options.retries ?? 3,
        maxRetryWait: options.maxRetryWait ?? 30,
        timeout: options.timeout,
        headers: options.headers,
        fetch: options.fetch,
      });
  }

  /** A client of another scope that shares this one's settings and bookmark. */
  withScope(scope: string): Client {
    return new Client({ ...this.transport.options, scope }, this.transport);
  }

  /**
   * The bookmark of this client's latest write, sent with every later request so that any
   * replica reads at least what this client wrote.
   */
  get bookmark(): string | null {
    return this.transport.bookmark;
  }

  /** Write a fact through the pipeline and say what it decided. */
  async remember(fact: string | FactInput, options: RememberOptions = {}): Promise<Decision> {
    const data = await this.send(
      RememberDocument,
      { scope: this.scope, fact: asInput(fact), pipeline: options.pipeline ?? null },
      options,
    );
    return data.remember;
  }

  /** Write a batch: one decision per fact, in input order; one bad fact refuses the batch. */
  async rememberMany(facts: ReadonlyArray<string | FactInput>, options: RememberOptions = {}): Promise<Decision[]> {
    const data = await this.send(
      RememberManyDocument,
      { scope: this.scope, facts: facts.map(asInput), pipeline: options.pipeline ?? null },
      options,
    );
    return data.rememberMany;
  }

  /**
   * Hybrid search. The options are the schema's SearchOptionsInput: `topK`, `thread` (the
   * topic's facts in the order they were said), `minScore` (leave out hits whose relevance is
   * below it), `standingLimit` (how many standing statements come back in `standing`), ...
   */
  async search(query: string, options: SearchOptions = {}): Promise<SearchResult> {
    const { signal, ...searchOptions } = options;
    const data = await this.send(SearchDocument, { scope: this.scope, query, options: searchOptions }, { signal });
    return data.search;
  }

  /** A fact by id; null when missing, forgotten, quarantined (unless asked for) or not valid asOf. */
  async get(id: string, options: CallOptions & { asOf?: string | Date; includeQuarantined?: boolean } = {}): Promise<Fact | null> {
    const data = await this.send(
      FactDocument,
      { scope: this.scope, id, asOf: iso(options.asOf), includeQuarantined: options.includeQuarantined ?? false },
      options,
    );
    return data.fact;
  }

  /**
   * The supersede chain a fact belongs to, oldest first, retired versions included. An unknown
   * id throws NotFoundError: the server answers NOT_FOUND (its field is null only then).
   */
  async history(id: string, options: CallOptions & { asOf?: string | Date } = {}): Promise<Fact[]> {
    const data = await this.send(HistoryDocument, { scope: this.scope, id, asOf: iso(options.asOf) }, options);
    return data.history ?? [];
  }

  /** Active facts, newest first (valid time, then recorded time). */
  async timeline(options: TimelineOptions = {}): Promise<Page<Fact>> {
    const data = await this.send(
      TimelineDocument,
      {
        scope: this.scope,
        first: options.first ?? 10,
        after: options.after ?? null,
        partition: options.partition ?? null,
        sessionId: options.sessionId ?? null,
        since: iso(options.since),
        until: iso(options.until),
      },
      options,
    );
    const { edges, pageInfo } = data.timeline;
    return { items: edges.map((edge) => edge.node), nextCursor: pageInfo.hasNextPage ? pageInfo.endCursor : null };
  }

  /**
   * The scope's active standing instructions and preferences, newest first: what an agent may
   * put in every prompt. `kind` keeps one of the two.
   */
  async standing(options: CallOptions & { kind?: StandingKind; limit?: number } = {}): Promise<Fact[]> {
    const data = await this.send(
      StandingDocument,
      { scope: this.scope, kind: options.kind ?? null, limit: options.limit ?? 100 },
      options,
    );
    return data.standing;
  }

  /** Soft delete: hidden from reads, kept in history. */
  async forget(id: string, options: ReasonOptions = {}): Promise<Fact> {
    const data = await this.send(ForgetDocument, { scope: this.scope, id, reason: options.reason ?? 'forgotten' }, options);
    return data.forget;
  }

  /** Replace an active fact with a new one and chain the two. */
  async supersede(id: string, fact: string | FactInput, options: ReasonOptions = {}): Promise<Decision> {
    const data = await this.send(
      SupersedeDocument,
      { scope: this.scope, id, fact: asInput(fact), reason: options.reason ?? 'superseded by the caller' },
      options,
    );
    return data.supersede;
  }

  /** Quarantined facts waiting for review, oldest first (admin key). */
  async reviewQueue(options: CallOptions & { first?: number; after?: string | null } = {}): Promise<Page<HeldFact>> {
    const data = await this.send(
      ReviewQueueDocument,
      { scope: this.scope, first: options.first ?? 20, after: options.after ?? null },
      options,
    );
    return { items: data.reviewQueue.held, nextCursor: data.reviewQueue.nextCursor };
  }

  /** Promote a quarantined fact after review (admin key). */
  async validate(id: string, options: ReasonOptions = {}): Promise<Decision> {
    const data = await this.send(ValidateDocument, { scope: this.scope, id, reason: options.reason ?? 'validated' }, options);
    return data.validate;
  }

  /** Refuse a quarantined fact; it is kept as forgotten (admin key). */
  async reject(id: string, options: ReasonOptions = {}): Promise<Fact> {
    const data = await this.send(RejectDocument, { scope: this.scope, id, reason: options.reason ?? 'rejected' }, options);
    return data.reject;
  }

  /**
   * Any other GraphQL operation: a query string (with `scope` among its variables if it needs
   * one) or a typed document. Returns `data`.
   */
  async graphql<TResult = Record<string, unknown>, TVariables = Record<string, unknown>>(
    document: Document<TResult, TVariables>,
    variables: TVariables,
    options: CallOptions = {},
  ): Promise<TResult> {
    return this.transport.request(this.scope, document, variables, options.signal);
  }

  private send<TResult, TVariables>(
    document: Document<TResult, TVariables>,
    variables: TVariables,
    options: CallOptions,
  ): Promise<TResult> {
    return this.transport.request(this.scope, document, variables, options.signal);
  }
}

function asInput(fact: string | FactInput): FactInput {
  return typeof fact === 'string' ? { text: fact } : fact;
}

function iso(value: string | Date | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  return value instanceof Date ? value.toISOString() : value;
}
