"""Pages for people: the console, the Neo4j Browser's style sheet and guide, the favicon."""
