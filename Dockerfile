# The factgraph service image used by docker-compose.yml (Neo4j runs in its own container).
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md schema.graphql ./
COPY graph ./graph
COPY resolvers ./resolvers
COPY cypher ./cypher
RUN pip install --no-cache-dir .
ENV FACTGRAPH_HOME=/data
EXPOSE 8000
CMD ["factgraph", "serve"]
