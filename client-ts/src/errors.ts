// Errors carrying what the server said: its code, the input at fault, the HTTP status.

/** Options of a FactgraphError besides its code and message. */
export interface ErrorDetails {
  field?: string | null;
  status?: number | null;
  body?: unknown;
}

/**
 * The service refused or failed a call. `code` is the server's (BAD_USER_INPUT, NOT_FOUND,
 * UNAUTHENTICATED, FORBIDDEN, OVERLOADED, DATABASE_UNAVAILABLE, ...); `field` names the input
 * at fault for bad input, as the server named it (`fact.text`, `facts[3].text`, `options.topK`).
 */
export class FactgraphError extends Error {
  readonly code: string;
  readonly field: string | null;
  readonly status: number | null;
  readonly body: unknown;

  constructor(code: string, message: string, details: ErrorDetails = {}) {
    super(`${code}: ${message}`);
    this.name = new.target.name;
    this.code = code;
    this.field = details.field ?? null;
    this.status = details.status ?? null;
    this.body = details.body;
  }
}

/** BAD_USER_INPUT: nothing was written; `field` says which input to fix. */
export class ValidationError extends FactgraphError {}

/** NOT_FOUND: no such fact in this scope. */
export class NotFoundError extends FactgraphError {}

/** UNAUTHENTICATED or FORBIDDEN: the API key is missing, wrong, or not allowed here. */
export class AuthError extends FactgraphError {}

/** 503 (OVERLOADED, DATABASE_UNAVAILABLE) still answered after the bounded retries. */
export class UnavailableError extends FactgraphError {}

const BY_CODE: Record<string, typeof FactgraphError> = {
  BAD_USER_INPUT: ValidationError,
  GRAPHQL_VALIDATION_FAILED: ValidationError,
  BAD_REQUEST: ValidationError,
  NOT_FOUND: NotFoundError,
  UNAUTHENTICATED: AuthError,
  FORBIDDEN: AuthError,
};

/** The error class for a server code (503 is always UnavailableError). */
export function errorFrom(code: string, message: string, details: ErrorDetails = {}): FactgraphError {
  const Kind = details.status === 503 ? UnavailableError : (BY_CODE[code] ?? FactgraphError);
  return new Kind(code, message, details);
}
