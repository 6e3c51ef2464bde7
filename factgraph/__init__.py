"""The command line, above both `graph/` (the service) and `resolvers/` (its
transports): the one place that composes them."""
