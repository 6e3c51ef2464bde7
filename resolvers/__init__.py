"""The GraphQL (and REST) shell over `graph.Memory`: no Cypher, no ranking, only translation."""
