"""How well the standing-statement patterns (graph/reading/standing.py) recognise the BEAM
development chats' instruction- and preference-following evidence, and how often they fire on
the other messages.

    .venv/bin/python bench/standing.py                 # 100K and 500K, a summary
    .venv/bin/python bench/standing.py --show 20       # and a sample of what fires elsewhere
    .venv/bin/python bench/standing.py --locomo ../shared/data/locomo/locomo-dev.json  # chit-chat
    .venv/bin/python bench/standing.py --vectors 500   # with the model: the write path's reading

No Neo4j, no model: the patterns over each message as the recall bench stores it ("role:
content", graph/reading/standing.py strips the label). With `--vectors N`, the write path's
reading instead: each message embedded as the import stores it (its contextual line "[about
user; session S; on DATE]" before the text; the date fixed, as it moves the vector little) and
read by the classifier beside the patterns, over the evidence and N other user messages drawn
at random (embedding all 4,000 takes long on 2 cores). Evidence of a type is every message its
questions name; `recall` is the share of those the patterns recognise, `fires` the share of the
other user messages they recognise (the assistant's never count).
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Callable
from pathlib import Path

from graph.config import Settings
from graph.platform.embedding import Embedder
from graph.reading.standing import recognise

ROOT = Path(__file__).resolve().parent.parent
TYPES = ("instruction_following", "preference_following")


def messages(chat: Path) -> dict[int, dict[str, str]]:
    batches = json.loads((chat / "chat.json").read_text(encoding="utf-8"))
    out: dict[int, dict[str, str]] = {}
    for batch in batches:
        for turn in batch["turns"]:
            for message in turn:
                out[int(message["id"])] = message
    return out


def evidence(chat: Path, kind: str) -> list[list[int]]:
    """Each question's evidence ids, for one question type."""
    probing = json.loads((chat / "probing_questions.json").read_text(encoding="utf-8"))
    out = []
    for item in probing.get(kind, []):
        ids = item.get("source_chat_ids") or []
        if isinstance(ids, dict):
            ids = [i for part in ids.values() for i in part]
        out.append([int(i) for i in ids])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    data = ROOT.parent / "shared" / "data" / "beam"
    parser.add_argument("--beam", type=Path, nargs="*", default=[data / "100K", data / "500K"])
    parser.add_argument("--show", type=int, default=0, help="print N messages it fires on")
    parser.add_argument("--locomo", type=Path, default=None, help="also LoCoMo's turns")
    parser.add_argument("--vectors", type=int, default=0, help="with the model, N others")
    args = parser.parse_args(argv)
    read = _reader(args.vectors > 0)
    found = {kind: [0, 0] for kind in TYPES}  # questions with recognised evidence, questions
    fired: list[str] = []
    pool: list[str] = []
    others = 0
    for folder in args.beam:
        for chat in sorted(p for p in folder.iterdir() if p.is_dir()):
            msgs = messages(chat)
            gold: set[int] = set()
            for kind in TYPES:
                for ids in evidence(chat, kind):
                    gold |= set(ids)
                    found[kind][1] += 1
                    texts = [f"{msgs[i]['role']}: {msgs[i]['content']}" for i in ids if i in msgs]
                    found[kind][0] += any(read(t) for t in texts)
            rest = [
                f"user: {m['content']}"
                for mid, m in msgs.items()
                if mid not in gold and m["role"] == "user"
            ]
            pool.extend(rest)
    if args.vectors:
        pool = random.Random(0).sample(pool, min(args.vectors, len(pool)))
    for text in pool:
        others += 1
        if read(text):
            fired.append(text)
    for kind, (hit, total) in found.items():
        print(f"{kind}: evidence recognised for {hit}/{total} questions ({hit / total:.2f})")
    print(f"other user messages recognised: {len(fired)}/{others} ({len(fired) / others:.3f})")
    for text in random.Random(0).sample(fired, min(args.show, len(fired))):
        print("  -", text[:200].replace("\n", " "))
    if args.locomo is not None:
        turns = locomo_turns(args.locomo)
        chatted = [t for t in turns if recognise(t)]
        print(
            f"LoCoMo turns recognised: {len(chatted)}/{len(turns)}",
            f"({len(chatted) / len(turns):.3f})",
        )
        for text in random.Random(7).sample(chatted, min(args.show, len(chatted))):
            print("  -", text[:200])
    return 0


def _reader(with_vectors: bool) -> Callable[[str], bool]:
    """Whether a stored message is recognised: by the patterns, or as the write path reads it."""
    if not with_vectors:
        return lambda text: recognise(text) is not None
    embedder = Embedder(Settings.from_env())

    def read(text: str) -> bool:
        vector = embedder.embed([f"[about user; session 1; on 07 December 2026] {text}"])[0]
        return recognise(text, vector=vector, embedder=embedder.id) is not None

    return read


def locomo_turns(path: Path) -> list[str]:
    """Every turn of LoCoMo's conversations as "Speaker: text"."""
    out: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if "text" in node and "speaker" in node:
                out.append(f"{node['speaker']}: {node['text']}")
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads(path.read_text(encoding="utf-8")))
    return out


if __name__ == "__main__":
    raise SystemExit(main())
