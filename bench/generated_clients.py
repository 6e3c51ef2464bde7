"""Clients generated from openapi.json, in Python and TypeScript: do they build and talk?

Not a figure: a check, run by hand when the document changes (it fetches the generators from
PyPI and npm into a temporary directory). openapi-python-client generates a Python client,
which must import and pass mypy, and which then makes the calls a user starts with against a
running server (--url, on the Neo4j this environment names; what the calls write is deleted):
the REST write, history and search, and mem0's add, list, entities and the delete of an id
holding `/`. openapi-typescript generates the TypeScript types, which must compile under
`tsc --strict` with typed requests, and refuse an `entity_type` outside its enum.

    .venv/bin/python bench/generated_clients.py --url http://127.0.0.1:8000
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

from bench.serve import drop_scope

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
PYTHON_GENERATOR = "openapi-python-client==0.29.1"
TS_GENERATOR = "openapi-typescript@7.13.0"

SMOKE = """
import sys
from factgraph_rest_api_client import AuthenticatedClient
from factgraph_rest_api_client.api.memories import create, history
from factgraph_rest_api_client.api.search import search
from factgraph_rest_api_client.api.mem0 import (
    entities_delete, entities_list, memories_create, memories_list_v2,
)
from factgraph_rest_api_client.models import (
    EntitiesDeleteEntityType, Mem0ListRequest, MemoryWrite, SearchRequest,
)

client = AuthenticatedClient(
    base_url=sys.argv[1], token="unused", headers={"X-Scope": sys.argv[2]},
    raise_on_unexpected_status=True,
)
written = create.sync(client=client, body=MemoryWrite(content="Generated clients work", turn=3))
assert history.sync(written.id, client=client).history
assert search.sync(client=client, body=SearchRequest(query="generated", threshold=None)).results
added = memories_create.sync(client=client, body={
    "messages": [{"role": "user", "content": "Alice likes tea"}],
    "user_id": "team/alice", "infer": False,
})
assert added.results
listing = Mem0ListRequest.from_dict({"filters": {"user_id": "team/alice"}, "page_size": 10})
assert memories_list_v2.sync(client=client, body=listing)
assert entities_list.sync(client=client).count >= 1
gone = entities_delete.sync(EntitiesDeleteEntityType.USER, "team/alice", client=client)
assert gone.deleted == 1, gone
print("python client: every call answered as documented")
"""

TYPED = """
import type { paths, components } from "./schema";
type Add = paths["/v1/memories/"]["post"]["requestBody"]["content"]["application/json"];
const add: Add = { messages: [{ role: "user", content: "hi" }], user_id: "team/alice" };
const write: components["schemas"]["MemoryWrite"] = { content: "x", valid_to: null, turn: 9 };
type Entity = paths["/v2/entities/{entity_type}/{entity_id}/"]["delete"]["parameters"]["path"];
const entity: Entity = { entity_type: "ENTITY_TYPE", entity_id: "team/alice" };
export { add, write, entity };
"""


def step(what: str, command: list[str], cwd: Path, *, fails: bool = False) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    if (done.returncode != 0) != fails:
        raise SystemExit(f"{what}: {' '.join(command)}\n{done.stdout}{done.stderr}")
    return done.stdout + done.stderr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", required=True, help="a running factgraph server")
    args = parser.parse_args()
    document = ROOT / "openapi.json"
    with tempfile.TemporaryDirectory() as where:
        work = Path(where)
        uv = str(BIN / "uv")
        step("venv", [uv, "venv", "-q", "--python", sys.executable, "venv"], work)
        python = str(work / "venv/bin/python")
        step("generator", [uv, "pip", "install", "-q", "--python", python, PYTHON_GENERATOR], work)
        step(
            "generate",
            [
                str(work / "venv/bin/openapi-python-client"),
                *("generate", "--path", str(document), "--output-path", "client"),
            ],
            work,
        )
        step("install", [uv, "pip", "install", "-q", "--python", python, "-e", "client"], work)
        step("mypy", [str(BIN / "mypy"), "--ignore-missing-imports", "client"], work)
        (work / "smoke.py").write_text(SMOKE)
        scope = f"bench-clients-{uuid.uuid4().hex[:8]}"
        try:
            print(step("calls", [python, "smoke.py", args.url, scope], work).strip())
        finally:
            drop_scope(scope)

        ts = work / "ts"
        ts.mkdir()
        step("npm", ["npm", "init", "-y"], ts)
        install = ["npm", "install", "--silent", "--no-audit", "--no-fund"]
        step("npm install", [*install, TS_GENERATOR, "typescript@5"], ts)
        step("types", ["npx", "openapi-typescript", str(document), "-o", "schema.d.ts"], ts)
        tsc = ["npx", "tsc", "--noEmit", "--strict", "--target", "es2020"]
        (ts / "use.ts").write_text(TYPED.replace("ENTITY_TYPE", "user"))
        step("tsc", [*tsc, "use.ts", "schema.d.ts"], ts)
        (ts / "bad.ts").write_text(TYPED.replace("ENTITY_TYPE", "users"))
        step("tsc refuses", [*tsc, "bad.ts", "schema.d.ts"], ts, fails=True)
        print("typescript types: compile under tsc --strict; entity_type 'users' refused")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
