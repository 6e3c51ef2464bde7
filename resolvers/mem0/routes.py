"""The routes of mem0's platform API that its Python (1.x, 2.x) and JavaScript clients call,
and those of mem0's open-source server (resolvers/mem0/oss.py).

Paths keep mem0's trailing slashes. An entity id may hold `/` (`team/alice`): the delete route
takes the rest of the path as the id, so `team%2Falice` (decoded once, by the server) and
`team/alice` both address it. docs/mem0.md describes them and the mapping onto factgraph.
"""

from __future__ import annotations

from starlette.convertors import PathConvertor, register_url_convertor
from starlette.routing import Route

from resolvers.mem0 import batch, entities, memories, oss, ping


class RestOfPath(PathConvertor):
    """The rest of the path, line breaks included (Starlette's `path` stops at one, and an id
    holding one then matched no route)."""

    regex = "(?s:.*)"


register_url_convertor("rest", RestOfPath())

routes = [
    Route("/v1/ping/", ping.ping, methods=["GET"]),
    Route("/v1/memories/", memories.add_v1, methods=["POST"]),
    Route("/v1/memories/", memories.list_v1, methods=["GET"]),
    Route("/v1/memories/", memories.delete_all, methods=["DELETE"]),
    Route("/v3/memories/add/", memories.add_v3, methods=["POST"]),
    Route("/v2/memories/", memories.list_v2, methods=["POST"]),
    Route("/v3/memories/", memories.list_v3, methods=["POST"]),
    Route("/v2/memories/search/", memories.search_v2, methods=["POST"]),
    Route("/v3/memories/search/", memories.search_v3, methods=["POST"]),
    Route("/v1/memories/{memory_id}/", memories.get, methods=["GET"]),
    Route("/v1/memories/{memory_id}/", memories.update, methods=["PUT"]),
    Route("/v1/memories/{memory_id}/", memories.delete, methods=["DELETE"]),
    Route("/v1/memories/{memory_id}/history/", memories.history, methods=["GET"]),
    Route("/v1/event/{event_id}/", memories.event, methods=["GET"]),
    Route("/v1/entities/", entities.listed, methods=["GET"]),
    # `rest`: an id may hold `/` (the clients send it encoded, the server decodes it).
    Route("/v2/entities/{entity_type}/{entity_id:rest}/", entities.delete, methods=["DELETE"]),
    Route("/v1/batch/", batch.update_many, methods=["PUT"]),
    Route("/v1/batch/", batch.delete_many, methods=["DELETE"]),
    Route("/v1/feedback/", batch.feedback, methods=["POST"]),
    # mem0's open-source server (server/main.py): no trailing slashes.
    Route("/memories", oss.add, methods=["POST"]),
    Route("/memories", oss.listed, methods=["GET"]),
    Route("/memories", oss.delete_all, methods=["DELETE"]),
    Route("/memories/{memory_id}", oss.get, methods=["GET"]),
    Route("/memories/{memory_id}", oss.update, methods=["PUT"]),
    Route("/memories/{memory_id}", oss.delete, methods=["DELETE"]),
    Route("/memories/{memory_id}/history", oss.history, methods=["GET"]),
    Route("/search", oss.search, methods=["POST"]),
    Route("/reset", oss.reset, methods=["POST"]),
    Route("/entities", oss.entities, methods=["GET"]),
    Route("/entities/{entity_type}/{entity_id:rest}", oss.delete_entity, methods=["DELETE"]),
    # Its LLM configuration routes: a clear 501, not a bare 404 (docs/mem0.md).
    Route("/configure", oss.configure, methods=["POST"]),
    Route("/configure", oss.configuration, methods=["GET"]),
    Route("/configure/providers", oss.configure_providers, methods=["GET"]),
    Route("/generate-instructions", oss.generate_instructions, methods=["POST"]),
]
