"""The standing recogniser on sentences it was not trained on: the held-out part of the labelled
set written for it (bench/data/standing_set.jsonl), read as the write path reads a fact, with
the real model's vector of its contextual text. The floors are the scores bench/standing_set.py
measured when the weights were shipped, less a margin: the model's
vectors move with the batch a text is padded in (one sentence more or less each way)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graph.platform.embedding import Embedder
from graph.reading.standing import Standing, recognise, shipped

SET = Path(__file__).resolve().parent.parent / "bench" / "data" / "standing_set.jsonl"
# (precision, recall) on the held-out part; bench/results/standing_set.json has the figures.
FLOORS = {Standing.INSTRUCTION: (0.9, 0.89), Standing.PREFERENCE: (0.9, 0.89)}


@pytest.fixture(scope="module")
def said(embedder: Embedder) -> list[tuple[str | None, Standing | None]]:
    rows = [json.loads(line) for line in SET.read_text(encoding="utf-8").splitlines() if line]
    held = [r for r in rows if r["split"] == "held-out"]
    vectors = embedder.embed([f"[on 07 December 2026] {r['text']}" for r in held])
    return [
        (r["kind"], recognise(r["text"], vector=v, embedder=embedder.id))
        for r, v in zip(held, vectors, strict=True)
    ]


def test_the_shipped_classifier_reads_the_default_model() -> None:
    classifier = shipped()
    assert classifier is not None and classifier.model.startswith("e5-small-v2")


@pytest.mark.parametrize("kind", list(FLOORS))
def test_held_out_statements_are_recognised_with_their_kind(
    said: list[tuple[str | None, Standing | None]], kind: Standing
) -> None:
    precision_floor, recall_floor = FLOORS[kind]
    called = [truth for truth, got in said if got is kind]
    real = [got for truth, got in said if truth == kind.value]
    precision = sum(1 for truth in called if truth == kind.value) / len(called)
    recall = sum(1 for got in real if got is kind) / len(real)
    assert precision >= precision_floor and recall >= recall_floor, (precision, recall)


def test_phrasings_people_use_are_read_without_a_vector_too() -> None:
    """The patterns alone (a vector of another model) still know the common openings."""
    assert recognise("Stop using bullet points in your answers.") is Standing.INSTRUCTION
    assert recognise("You can stop using bullet points.") is None
    assert recognise("Stop the server on port 8080.") is None
