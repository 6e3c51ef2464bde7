"""The routes of mem0's platform API that its Python (1.x, 2.x) and JavaScript clients call.

Paths keep mem0's trailing slashes. An entity id may hold `/` (`team/alice`): the delete route
takes the rest of the path as the id, so `team%2Falice` (decoded once, by the server) and
`team/alice` both address it. docs/mem0.md describes them and the mapping onto factgraph.
"""

from __future__ import annotations

from starlette.convertors import PathConvertor, register_url_convertor
from starlette.routing import Route

from resolvers.mem0 import batch, entities, memories, ping


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
    Route("/v1/entities/", entities.listed, methods=["GET"]),
    Route("/v2/entities/{entity_type}/{entity_id:rest}/", entities.delete, methods=["DELETE"]),
    Route("/v1/batch/", batch.update_many, methods=["PUT"]),
    Route("/v1/batch/", batch.delete_many, methods=["DELETE"]),
    Route("/v1/feedback/", batch.feedback, methods=["POST"]),
]
