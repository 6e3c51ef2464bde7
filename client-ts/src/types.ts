// The client's public types: names for the shapes GraphQL Code Generator derived from
// schema.graphql and the client's operations (src/generated/graphql.ts), never written by hand.

import type {
  DecisionFieldsFragment,
  FactFieldsFragment,
  ReviewQueueQuery,
  SearchQuery,
} from './generated/graphql.js';

export type {
  DecisionKind,
  FactInput,
  FactStatus,
  SearchDecayInput,
  SearchFusionInput,
  SearchFusionMethod,
  SearchMode,
  SearchOptionsInput,
  SearchWeightsInput,
  StandingKind,
} from './generated/graphql.js';

/** A fact as the client reads it. */
export type Fact = FactFieldsFragment;
/** What the write pipeline decided for one fact: INSERT, DEDUP, MERGE, SUPERSEDE or QUARANTINE. */
export type Decision = DecisionFieldsFragment;
/**
 * The hits, the facts related to them, the standing statements that bear on the query, and
 * whether anything in the scope answers it (`answerable` false: "nothing here", whatever the
 * hits; `answerability` its 0..1 chance).
 */
export type SearchResult = SearchQuery['search'];
export type SearchHit = SearchResult['hits'][number];
export type SearchStanding = SearchResult['standing'][number];
export type RelatedFact = SearchResult['related'][number];
/** A quarantined fact with why and when it was held. */
export type HeldFact = ReviewQueueQuery['reviewQueue']['held'][number];

/** One page of facts; pass `nextCursor` as `after` for the next (null: the last page). */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** What every call takes: an AbortSignal that cancels the request and any retry wait. */
export interface CallOptions {
  signal?: AbortSignal | undefined;
}
