// One GraphQL request over fetch: headers, the bookmark of the latest write, the bounded 503
// retry, and the server's errors turned into typed exceptions.

import { errorFrom, type FactgraphError } from './errors.js';

export const BOOKMARK_HEADER = 'X-Neo4j-Bookmark';
const BOOKMARK_EXTENSION = 'neo4jBookmark';

/** A generated document (`TypedDocumentString`) or a plain query string. */
export type Document<TResult, TVariables> = { toString(): string; __apiType?: (variables: TVariables) => TResult } | string;

export interface TransportOptions {
  url: string;
  apiKey?: string | undefined;
  retries: number;
  maxRetryWait: number;
  timeout?: number | undefined;
  headers?: Record<string, string> | undefined;
  fetch?: typeof fetch | undefined;
}

/** The state one client and its `withScope` copies share: settings and the latest bookmark. */
export class Transport {
  readonly endpoint: string;
  bookmark: string | null = null;

  constructor(readonly options: TransportOptions) {
    if (!Number.isInteger(options.retries) || options.retries < 0) {
      throw new TypeError('retries must be an integer >= 0');
    }
    this.endpoint = `${options.url.replace(/\/+$/, '')}/graphql`;
  }

  headers(scope: string): Record<string, string> {
    // The scope travels in the arguments too; X-Scope lets a proxy or the access log see it.
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      Accept: 'application/json',
      'X-Scope': scope,
      ...this.options.headers,
    };
    if (this.options.apiKey) headers.Authorization = `Bearer ${this.options.apiKey}`;
    if (this.bookmark) headers[BOOKMARK_HEADER] = this.bookmark;
    return headers;
  }

  /**
   * Send one operation and return its `data`. A 503 (the service refused before doing
   * anything: overload, or Neo4j unreachable) is sent again after Retry-After seconds, capped
   * by maxRetryWait, at most `retries` times; nothing else is retried.
   */
  async request<TResult, TVariables>(
    scope: string,
    document: Document<TResult, TVariables>,
    variables: TVariables,
    signal?: AbortSignal,
  ): Promise<TResult> {
    const body = JSON.stringify({ query: document.toString(), variables });
    const send = this.options.fetch ?? globalThis.fetch;
    for (let attempt = 0; ; attempt += 1) {
      signal?.throwIfAborted();
      const init: RequestInit = { method: 'POST', headers: this.headers(scope), body };
      const deadline = this.options.timeout ? AbortSignal.timeout(this.options.timeout) : undefined;
      const bounded = signal && deadline ? AbortSignal.any([signal, deadline]) : (signal ?? deadline);
      if (bounded) init.signal = bounded;
      const response = await send(this.endpoint, init);
      if (response.status === 503 && attempt < this.options.retries) {
        await response.body?.cancel();
        const wait = Math.min(retryAfter(response.headers.get('retry-after')), this.options.maxRetryWait);
        await sleep(wait * 1000, signal);
        continue;
      }
      return (await this.read(response)) as TResult;
    }
  }

  private async read(response: Response): Promise<unknown> {
    const status = response.status;
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw errorFrom(status < 400 ? 'BAD_RESPONSE' : `HTTP_${status}`, text.slice(0, 300) || response.statusText, { status });
    }
    const answer = isObject(body) ? body : {};
    const extensions = isObject(answer.extensions) ? answer.extensions : {};
    const bookmark = stringOrNull(extensions[BOOKMARK_EXTENSION]) ?? response.headers.get(BOOKMARK_HEADER);
    if (bookmark) this.bookmark = bookmark;
    const errors = Array.isArray(answer.errors) ? answer.errors : [];
    if (errors.length > 0) throw graphqlError(errors[0], status, body);
    if (isObject(answer.error)) throw restError(answer.error, status, body); // a middleware's answer
    if (status >= 400 || !isObject(answer.data)) {
      throw errorFrom(`HTTP_${status}`, text.slice(0, 300), { status, body });
    }
    return answer.data;
  }
}

function graphqlError(error: unknown, status: number, body: unknown): FactgraphError {
  const entry = isObject(error) ? error : {};
  const extensions = isObject(entry.extensions) ? entry.extensions : {};
  return errorFrom(stringOrNull(extensions.code) ?? 'GRAPHQL_ERROR', String(entry.message ?? ''), {
    field: stringOrNull(extensions.field),
    status,
    body,
  });
}

function restError(error: Record<string, unknown>, status: number, body: unknown): FactgraphError {
  return errorFrom(stringOrNull(error.code) ?? `HTTP_${status}`, String(error.message ?? ''), {
    field: stringOrNull(error.field),
    status,
    body,
  });
}

/** Retry-After in seconds (delta-seconds or an HTTP date); 1 s when absent or unreadable. */
export function retryAfter(value: string | null): number {
  if (!value) return 1;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const when = Date.parse(value);
  return Number.isNaN(when) ? 1 : Math.max(0, (when - Date.now()) / 1000);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value ? value : null;
}
