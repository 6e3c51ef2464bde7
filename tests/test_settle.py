"""After a bulk import the vector index is left merged, with nothing left behind by doing so."""

from __future__ import annotations

from graph.bulk.settle import PROBE_SCOPE, settle_vector_index
from graph.config import Settings
from graph.db import Database
from graph.embedding import Embedder


def test_settling_the_vector_index_probes_until_no_merge_starts_and_leaves_no_trace(
    db: Database, settings: Settings, embedder: Embedder
) -> None:
    settled = settle_vector_index(db, settings, embedder.dimensions, timeout=120, progress=False)

    left = db.driver.execute_query(
        "MATCH (f:Fact {scope: $scope}) RETURN count(f) AS n", scope=PROBE_SCOPE, database_=db.name
    ).records[0]["n"]
    assert left == 0
    assert settled.probes >= 1 and settled.seconds < 120
    # The local index folder was found and counted (a fresh database may hold no segment yet).
    assert settled.segments_after is not None and settled.segments_after >= 0
    assert "vector index: merged" in settled.render()
