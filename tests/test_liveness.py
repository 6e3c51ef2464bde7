"""The outage gate's rule (graph/storage/liveness.py), driven with exact times: it closes when
Neo4j stops answering, soon enough for the 2 s bound, and it does not flap on a server that is
alive but slow (just restarted, cold).

The rule is a pure state machine; tests/test_outage.py and tests/test_faults.py run it against
a real Neo4j paused and killed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from graph.storage.liveness import OPEN_AFTER, Gate

TIMEOUT = 2.0  # FACTGRAPH_DB_TIMEOUT's default
STEP = 0.01


@dataclass
class Server:
    """Drives a Gate the way the watcher does, against a scripted server: `latency(sent)` is
    how long a ping sent at `sent` takes to be answered (None: never; "fail": refused)."""

    latency: Callable[[float], float | str | None]
    gate: Gate = field(default_factory=lambda: Gate(TIMEOUT))
    replies: dict[int, tuple[float, bool]] = field(default_factory=dict)  # ping -> (at, ok)
    changes: list[tuple[float, str]] = field(default_factory=list)

    def run(self, until: float, start: float = 0.0) -> list[tuple[float, str]]:
        now = start
        while now <= until:
            for ended, (at, ok) in sorted(self.replies.items(), key=lambda item: item[1][0]):
                if at <= now:
                    del self.replies[ended]
                    done = self.gate.answered(ended, at) if ok else self.gate.failed(ended, at, "E")
                    self._note(at, done)
            self._note(now, self.gate.tick(now))
            ping = self.gate.due(now)
            if ping is not None:
                took = self.latency(now)
                if isinstance(took, str):  # "fail"
                    self.replies[ping] = (now + 0.005, False)
                elif took is not None:
                    self.replies[ping] = (now + took, True)
            now = round(now + STEP, 6)
        return self.changes

    def _note(self, at: float, change: str | None) -> None:
        if change is not None:
            self.changes.append((round(at, 3), change))


def test_a_server_that_stops_answering_closes_the_gate_within_the_bound_whenever_it_stops() -> None:
    # The request that arrives just as the server stops must be answered within the timeout:
    # the gate closes by 0.8 of it, leaving the outage guard its poll.
    for stop in (5.0, 5.05, 5.13, 5.27, 5.39):

        def latency(sent: float, stop: float = stop) -> float | None:
            return 0.005 if sent < stop - 0.005 else None

        server = Server(latency)
        changes = server.run(until=9.0)
        assert [c for _, c in changes][:1] == ["down: no answer to any ping for 1.2s"], changes
        assert changes[0][0] - stop <= 0.8 * TIMEOUT, (stop, changes)


def test_a_killed_server_closes_the_gate_on_the_second_refused_ping() -> None:
    server = Server(lambda sent: 0.005 if sent < 3.0 else "fail")
    changes = server.run(until=5.0)
    assert len(changes) == 1 and changes[0][1].startswith("down: 2 pings in a row failed")
    assert changes[0][0] - 3.0 <= 0.9


def test_one_slow_ping_does_not_close_the_gate_while_the_next_are_answered() -> None:
    # The flap after a restart: the JVM, cold, takes 1.5 s over one ping (more than the 1.2 s
    # a silent server is given) while it answers the pings sent after it at once.
    server = Server(lambda sent: 1.5 if 2.0 <= sent < 2.4 else 0.02)
    assert server.run(until=8.0) == []


def test_a_slow_server_that_answers_every_ping_within_the_bound_stays_open() -> None:
    server = Server(lambda sent: 1.1)
    assert server.run(until=10.0) == []


def test_the_gate_opens_after_several_answered_pings_in_a_row_not_the_first() -> None:
    # Paused from 1 s to 4 s: what was sent meanwhile is answered at 4 s.
    server = Server(lambda sent: 4.0 - sent if 1.0 <= sent < 4.0 else 0.01)
    changes = server.run(until=8.0)
    assert [c for _, c in changes] == [changes[0][1], "up"]
    assert changes[0][1].startswith("down")
    # The ping outstanding over the pause is answered when it ends (4.0, late: it does not
    # count); then OPEN_AFTER pings, the first at once, then one per period.
    first_good = 4.0
    assert first_good + (OPEN_AFTER - 1) * 0.4 <= changes[1][0] <= first_good + OPEN_AFTER * 0.4


def test_a_cold_server_after_a_restart_closes_once_and_opens_once() -> None:
    # Killed at 1 s, refusing until 6 s, then cold: every other ping takes 1.3 s for 10 s
    # (a late one among answered ones), then warm. Before the hysteresis, each late ping
    # closed the gate and the next answered one opened it: a flap every second.
    def latency(sent: float) -> float | str:
        if sent < 1.0:
            return 0.01
        if sent < 6.0:
            return "fail"
        if sent < 16.0:
            return 1.3 if int(sent / 0.4) % 2 else 0.05
        return 0.01

    changes = Server(latency).run(until=25.0)
    assert [c.split(":")[0] for _, c in changes] == ["down", "up"], changes


def test_while_closed_a_failed_or_late_ping_starts_the_count_again() -> None:
    # Closed; then the server answers, but one ping in every OPEN_AFTER fails: never open.
    calls = {"n": 0}

    def latency(sent: float) -> float | str:
        if sent < 4.0:
            return 4.0 - sent if sent >= 0.5 else 0.01
        calls["n"] += 1
        return "fail" if calls["n"] % OPEN_AFTER == 0 else 0.01

    changes = Server(latency).run(until=12.0)
    assert [c.split(":")[0] for _, c in changes] == ["down"], changes


def test_a_paused_server_is_not_sent_a_pile_of_pings() -> None:
    server = Server(lambda sent: 0.005 if sent < 1.0 else None)
    server.run(until=30.0)
    assert len(server.gate.outstanding) <= 4
