"""A page of committed static files: its HTML at `path`, `path/` sent there, its files under
`path/assets`, every answer with the page's own headers (its content security policy)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles


class _Assets(StaticFiles):
    """Static files answered with the page's headers."""

    def __init__(self, directory: Path, headers: Mapping[str, str]) -> None:
        super().__init__(directory=directory)
        self._headers = dict(headers)

    def file_response(self, *args: object, **kwargs: object) -> Response:
        response = super().file_response(*args, **kwargs)  # type: ignore[arg-type]
        response.headers.update(self._headers)
        return response


def page_routes(
    path: str, directory: Path, headers: Mapping[str, str], *, name: str
) -> list[BaseRoute]:
    """The routes of the page whose `index.html` and files are in `directory`."""

    async def page(_: Request) -> Response:
        return FileResponse(directory / "index.html", media_type="text/html", headers=headers)

    async def slash(_: Request) -> Response:
        return RedirectResponse(path)

    return [
        Route(path, page, methods=["GET", "HEAD"]),
        Route(f"{path}/", slash, methods=["GET", "HEAD"]),
        Mount(f"{path}/assets", app=_Assets(directory, headers), name=f"{name}-assets"),
    ]
