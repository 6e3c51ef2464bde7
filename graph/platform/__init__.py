"""The machine factgraph runs on: its own Neo4j server, the model's files and the embedder."""
