"""GraphQL at /graphql: the schema, its types and inputs, and the resolvers by concern."""
