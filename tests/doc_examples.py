"""The fenced examples of the README and docs/, as a reader meets them (tests/test_doc_examples.py).

A block is what sits between two fences; its language is the fence's info string. A block that
only illustrates (a command that starts or stops a server, a host's configuration, a transcript)
says so on the line before its fence, which renders as nothing:

    <!-- not-run: why, in a few words -->

Everything else runs against the suite's real server. A reason that names a test file
(`tests/test_x.py runs it`) names one that exists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>```+)(?P<info>[^`\n]*)$")
NOT_RUN = re.compile(r"^\s*<!--\s*not-run:\s*(?P<reason>.+?)\s*-->\s*$")
# `pip install './client[langgraph]'`, `pip install ./client`, or the client from git.
CLIENT_INSTALL = re.compile(
    r"pip install '?(?:\./client|factgraph-client @ [^'\s]+)(?:\[(?P<extras>[\w,-]+)\])?'?"
)


@dataclass(frozen=True)
class Block:
    """One fenced example: where it is, its language, its text (unindented)."""

    page: Path
    line: int  # of the opening fence, from 1
    lang: str
    code: str
    not_run: str | None  # the marker's reason, if the block carries one

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def pages() -> list[Path]:
    """The Markdown a reader follows: the README and every page of docs/."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def blocks(page: Path) -> list[Block]:
    lines = page.read_text().splitlines()
    found: list[Block] = []
    at = 0
    while at < len(lines):
        opening = FENCE.match(lines[at])
        if opening is None:
            at += 1
            continue
        indent, fence = opening["indent"], opening["fence"]
        body: list[str] = []
        end = at + 1
        while end < len(lines) and lines[end].strip() != fence:
            body.append(lines[end][len(indent) :] if lines[end].startswith(indent) else lines[end])
            end += 1
        before = next((line for line in reversed(lines[:at]) if line.strip()), "")
        marker = NOT_RUN.match(before)
        found.append(
            Block(
                page=page,
                line=at + 1,
                lang=opening["info"].strip().split(" ")[0].lower(),
                code="\n".join(body) + "\n",
                not_run=marker["reason"] if marker else None,
            )
        )
        at = end + 1
    return found


def client_extras_before(block: Block) -> set[str] | None:
    """The extras of the last `pip install` of the client above the block on its page (an empty
    set: the client alone); None when the page installs no client before it."""
    text = "\n".join(block.page.read_text().splitlines()[: block.line - 1])
    installs = list(CLIENT_INSTALL.finditer(text))
    if not installs:
        return None
    extras = installs[-1]["extras"]
    return set(extras.split(",")) if extras else set()
