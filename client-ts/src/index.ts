// factgraph's TypeScript client: long-term memory for agents over the service's GraphQL API.

export { Client, type ClientOptions, type RememberOptions, type ReasonOptions, type SearchOptions, type TimelineOptions } from './client.js';
export { AuthError, FactgraphError, NotFoundError, UnavailableError, ValidationError, type ErrorDetails } from './errors.js';
export type * from './types.js';
