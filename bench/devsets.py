"""The two development sets (LoCoMo and BEAM) as conversations of rows to import and questions
with the evidence each names, in one shape, so one bench measures both the same way.

A row is what `factgraph import` reads; a fact's key is "<session>:<turn>", and so is every
evidence id, so a hit is judged by its session and turn alone. Neither data set is copied into
the project: both are read from the folder or file given (../shared/data/ by default).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.locomo import CATEGORY_NAMES, graded_questions, turn_rows

# BEAM's questions whose evidence is a dict of lists, and which list holds what (its README).
_UPDATED = "updated_info"
_ORIGINAL = "original_info"


@dataclass(frozen=True)
class Question:
    text: str
    kind: str
    gold: frozenset[str]
    # knowledge updates only: the updated and the original statements' keys
    updated: frozenset[str] = frozenset()
    original: frozenset[str] = frozenset()


@dataclass
class Conversation:
    name: str
    rows: list[dict[str, Any]]
    questions: list[Question] = field(default_factory=list)


def key(session_id: str | None, turn: int | None) -> str:
    """What a hit and an evidence id are compared by."""
    return f"{session_id}:{turn}"


def locomo(path: Path, limit: int = 0) -> list[Conversation]:
    """LoCoMo: each turn a fact, each question of categories 1-4 with its evidence turns."""
    samples: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for sample in samples[: limit or None]:
        rows = list(turn_rows(sample, captions=False))
        questions = [
            Question(
                text=str(qa["question"]),
                kind=CATEGORY_NAMES[int(qa["category"])],
                gold=frozenset(g.removeprefix("D") for g in gold),
            )
            for qa, gold in graded_questions(sample, 0)
        ]
        out.append(Conversation(str(sample["sample_id"]), rows, questions))
    return out


def beam(folder: Path, limit: int = 0, max_chars: int | None = None) -> list[Conversation]:
    """BEAM: each message a fact ("role: content", session = its batch, turn = its id, valid
    from the last time anchor seen); each question with evidence, keyed the same way.

    `max_chars`: a message longer than a fact may hold is stored in parts that carry its id
    (the README's rule), so that a store with a lower limit is measured the same way.
    """
    chats = sorted(
        (p for p in folder.iterdir() if (p / "chat.json").exists()), key=lambda p: int(p.name)
    )
    out = []
    for chat in chats[: limit or None]:
        batches = json.loads((chat / "chat.json").read_text(encoding="utf-8"))
        rows: list[dict[str, Any]] = []
        session_of: dict[int, str] = {}
        when: datetime | None = None
        for batch in batches:
            session = str(batch["batch_number"])
            for message in _messages(batch):
                if message.get("time_anchor"):
                    when = _anchor(str(message["time_anchor"]))
                mid = int(message["id"])
                session_of[mid] = session
                text = f"{message['role']}: {message['content']}"
                for part in _parts(text, max_chars):
                    rows.append(
                        {
                            "text": part,
                            "subject": message["role"],
                            "session_id": session,
                            "turn": mid,
                            "valid_from": (when or datetime(2024, 1, 1, tzinfo=UTC)).isoformat(),
                            "metadata": {"message": mid},
                        }
                    )
        probing = json.loads((chat / "probing_questions.json").read_text(encoding="utf-8"))
        questions = []
        for kind, items in probing.items():
            for item in items:
                ids = item.get("source_chat_ids")
                if not ids:
                    continue
                lists = ids if isinstance(ids, dict) else {"": ids}

                def keys(names: Any, known: dict[int, str] = session_of) -> frozenset[str]:
                    ids = [int(i) for i in _flat(names)]
                    return frozenset(key(known[i], i) for i in ids if i in known)

                gold = keys(list(lists.values()))
                if not gold:
                    continue
                questions.append(
                    Question(
                        text=str(item["question"]),
                        kind=kind,
                        gold=gold,
                        updated=keys(lists.get(_UPDATED, [])),
                        original=keys(lists.get(_ORIGINAL, [])),
                    )
                )
        out.append(Conversation(f"beam-{chat.name}", rows, questions))
    return out


def _flat(items: Any) -> Iterator[Any]:
    """Evidence ids, however deep the lists hold them (a few questions nest them)."""
    if isinstance(items, list | tuple):
        for item in items:
            yield from _flat(item)
    elif items is not None:
        yield items


def _messages(batch: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for turn in batch["turns"]:
        yield from turn


def _anchor(raw: str) -> datetime:
    """BEAM's "March-15-2024"."""
    return datetime.strptime(raw, "%B-%d-%Y").replace(tzinfo=UTC)


_PARAGRAPH = re.compile(r"\n\s*\n")


def _parts(text: str, max_chars: int | None) -> list[str]:
    """The text whole, or cut at paragraph ends (else hard) into parts of at most max_chars."""
    if max_chars is None or len(text) <= max_chars:
        return [text]
    parts: list[str] = []
    current = ""
    for paragraph in _PARAGRAPH.split(text):
        while len(paragraph) > max_chars:
            if current:
                parts.append(current)
                current = ""
            parts.append(paragraph[:max_chars])
            paragraph = paragraph[max_chars:]
        joined = f"{current}\n\n{paragraph}" if current else paragraph
        if len(joined) > max_chars:
            parts.append(current)
            current = paragraph
        else:
            current = joined
    if current:
        parts.append(current)
    return parts
