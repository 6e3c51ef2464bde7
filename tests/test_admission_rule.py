"""The rule that shares the admission slots between tenants (resolvers/http/admission.py,
`Shares`), driven with exact times: a tenant that floods is held to its share while another is
served, and the other is never refused for the room the flood holds.

tests/test_overload.py runs the same rule inside the service, over HTTP.
"""

from __future__ import annotations

from resolvers.http.admission import ADMITTED, CAPACITY, SHARE, Shares, Ticket

LIMIT = 8  # FACTGRAPH_MAX_QUEUE on 2 cores
PER_TENANT = 2  # FACTGRAPH_MAX_QUEUE_PER_TENANT: a quarter of it
WAIT = 2.0  # FACTGRAPH_ADMISSION_WAIT


def admit(shares: Shares, tenant: str, now: float) -> str | None:
    """One request: None if admitted (its slot taken), else "share", "capacity" or "wait"."""
    verdict = shares.arrive(tenant, now).verdict
    return None if verdict == ADMITTED else verdict or "wait"


def finish(shares: Shares, tenant: str, now: float = 0.0) -> list[Ticket]:
    """One of the tenant's requests answered and done; the waiting tickets that decides."""
    return shares.answered(tenant, now) + shares.done(now)


def test_a_tenant_alone_may_hold_all_but_the_room_kept_for_a_newcomer() -> None:
    shares = Shares(LIMIT, PER_TENANT, wait=WAIT)
    verdicts = [admit(shares, "a", 0.001 * i) for i in range(LIMIT)]
    assert verdicts == [None] * (LIMIT - PER_TENANT) + ["share"] * PER_TENANT


def test_beside_another_tenant_the_one_sending_the_most_is_held_to_its_share() -> None:
    shares = Shares(LIMIT, PER_TENANT, wait=WAIT)
    admit(shares, "b", 0.0)  # b is active: one request in progress
    verdicts = [admit(shares, "a", 0.01 + 0.001 * i) for i in range(5)]
    assert verdicts == [None, None, "share", "share", "share"]


def test_a_steady_tenant_is_admitted_though_the_flood_fills_every_slot() -> None:
    # The flood took its 6 slots while alone, and requests answered but still finishing hold
    # the other 2; it keeps sending. Then a steady tenant arrives, and its requests bunch up
    # (as when each takes a second): none is refused, every flood request is.
    shares = Shares(LIMIT, PER_TENANT, wait=WAIT)
    for i in range(LIMIT - PER_TENANT):
        assert admit(shares, "flood", 0.001 * i) is None
    shares.admitted += PER_TENANT
    verdicts: dict[str, list[str | None]] = {"flood": [], "steady": []}
    for i in range(60):
        tenant = "steady" if i % 10 == 0 else "flood"
        verdicts[tenant].append(admit(shares, tenant, 1.0 + 0.01 * i))
    assert verdicts["steady"] == [None] * 6
    assert set(verdicts["flood"]) == {"share"}
    # Its share is what the flood leaves it (the flood counted at its own share): 8 - 2; past
    # it, it waits for a slot rather than being refused.
    assert admit(shares, "steady", 1.7) == "wait"


def test_a_third_tenant_takes_from_the_steady_ones_share_only_what_it_holds() -> None:
    # Beside the flood, a tenant holding one slot (health checks from one address) leaves the
    # steady tenant 8 - 2 - 1.
    shares = Shares(LIMIT, PER_TENANT, wait=WAIT)
    for i in range(10):
        admit(shares, "flood", 0.001 * i)
    assert admit(shares, "health", 0.05) is None
    steady = [admit(shares, "steady", 0.1 + 0.01 * i) for i in range(6)]
    assert steady == [None] * 5 + ["wait"]


def test_no_number_of_made_up_tenants_passes_the_ceiling() -> None:
    # Without keys a tenant is a scope, so a client can be many tenants: beside a flood each
    # is "light", but each one holding a slot shrinks the share of the next.
    shares = Shares(LIMIT, PER_TENANT, wait=WAIT)
    for i in range(20):
        admit(shares, "flood", 0.001 * i)
    verdicts = [admit(shares, f"scope-{i}", 0.1 + 0.001 * i) for i in range(50)]
    assert shares.admitted == 2 * LIMIT
    assert verdicts.count(None) == 2 * LIMIT - (LIMIT - PER_TENANT)
    # The rest wait, and the queue is bounded: 8 times the limit, all tenants together.
    waited = [admit(shares, f"more-{i}", 0.2 + 0.0001 * i) for i in range(8 * LIMIT)]
    assert len(shares.queue) == 8 * LIMIT and CAPACITY in waited


def test_a_flood_that_starts_beside_a_steady_tenant_is_held_within_a_few_requests() -> None:
    # A steady tenant has sent 5 a second for a while; a flood of 30 starts at once. Its first
    # requests are its minimum; from then on it weighs the most (held and refused) and is held
    # to its share, before it has built up any rate.
    shares = Shares(LIMIT, PER_TENANT, wait=WAIT)
    for i in range(10):
        admit(shares, "steady", 0.2 * i)
        finish(shares, "steady", 0.2 * i)
    flood = [admit(shares, "flood", 2.0 + 0.001 * i) for i in range(30)]
    assert flood == [None] * PER_TENANT + ["share"] * (30 - PER_TENANT)


def test_every_tenant_keeps_its_minimum_whoever_fills_the_slots() -> None:
    # Answered requests still finishing fill the limit, and the steady tenant is, for the
    # moment, the heaviest: it is still admitted up to its share.
    shares = Shares(LIMIT, PER_TENANT, wait=WAIT)
    admit(shares, "flood", 0.0)
    shares.admitted = LIMIT
    steady = [admit(shares, "steady", 0.01 + 0.01 * i) for i in range(3)]
    assert steady == [None, None, "share"]


def test_a_tenant_quiet_for_the_active_window_no_longer_holds_the_flood_back() -> None:
    shares = Shares(LIMIT, PER_TENANT, wait=WAIT)
    admit(shares, "b", 0.0)
    finish(shares, "b", 0.0)
    assert [admit(shares, "a", 0.5 + 0.001 * i) for i in range(3)] == [None, None, "share"]
    for _ in range(2):
        finish(shares, "a", 0.6)
    # b's last request was 2 s ago (ACTIVE): a is alone again and may use all but the room.
    later = [admit(shares, "a", 2.5 + 0.001 * i) for i in range(LIMIT)]
    assert later == [None] * (LIMIT - PER_TENANT) + ["share"] * PER_TENANT


def test_who_is_held_follows_who_sends_the_most_not_who_came_first() -> None:
    shares = Shares(LIMIT, PER_TENANT, wait=WAIT)
    for i in range(3):  # a came first, and sends 3 requests
        admit(shares, "a", 0.001 * i)
    for i in range(10):  # b now sends far more
        admit(shares, "b", 0.1 + 0.001 * i)
    assert shares.held["b"] == PER_TENANT, "the heavier b is held to its share"
    assert admit(shares, "a", 0.2) is None, "a, lighter now, is still admitted"


def test_beside_a_flood_a_lighter_tenant_waits_for_a_slot_and_is_served_before_the_flood() -> None:
    # The flood was alone for an instant and took 6 slots; its 44 other clients were refused
    # and wait out their Retry-After. The steady tenant's requests then arrive bunched (the
    # event loop stalled while the flood's clients connected): 30 in 0.4 s, as measured.
    shares = Shares(LIMIT, PER_TENANT, wait=WAIT)
    for i in range(50):
        admit(shares, "flood", 0.0002 * i)
    assert shares.held == {"flood": LIMIT - PER_TENANT}
    steady = [admit(shares, "steady", 0.1 + 0.4 * i / 30) for i in range(30)]
    oldest = shares.queue[0]
    assert SHARE not in steady and CAPACITY not in steady, "none refused"
    assert steady.count(None) == LIMIT - PER_TENANT and steady.count("wait") == 24
    # The steady tenant holds its room (8 less the flood's 2): a slot the flood gives back is
    # not yet one it may take, and the flood's next request is refused at once.
    assert finish(shares, "flood", 0.6) == []
    assert admit(shares, "flood", 0.61) == SHARE
    # One of its own is answered: its oldest waiting request takes the slot.
    assert finish(shares, "steady", 0.7) == [oldest] and oldest.verdict == ADMITTED
    # The flood's leftovers drain (to 1 of its 2), then one of the steady tenant's requests is
    # answered every 50 ms: every waiting one is admitted, well within its wait.
    served = [t for i in range(4) for t in finish(shares, "flood", 0.75 + 0.01 * i)]
    now = 0.8
    while shares.queue:
        assert now < oldest.deadline, "a waiting request was left past its wait"
        served += finish(shares, "steady", now)
        now += 0.05
    assert len(served) == 23 and {t.verdict for t in served} == {ADMITTED}


def test_a_wait_is_bounded_and_a_refusal_comes_when_it_is_up() -> None:
    shares = Shares(LIMIT, PER_TENANT, wait=WAIT)
    for second in range(3):  # the flood's clients come back every Retry-After
        for i in range(50):
            admit(shares, "flood", second + 0.001 * i)
        if second == 0:
            tickets = [shares.arrive("steady", 0.1 + 0.001 * i) for i in range(8)]
            waiting = [t for t in tickets if t.verdict is None]
            assert len(waiting) == 2
    assert shares.expire(0.1 + WAIT - 0.01) == [], "not before its wait is up"
    assert shares.expire(0.11 + WAIT) == waiting
    assert [t.verdict for t in waiting] == [CAPACITY] * 2 and shares.queue == []


def test_the_lightest_waiting_tenant_is_served_first() -> None:
    # The flood took 6 slots alone and its answered requests still finish in 6 more; b and c
    # hold their minimum, and the ceiling (twice the limit) is reached. b waits with 2, c,
    # lighter, with 1: the next slot given back goes to c, though b came first.
    shares = Shares(LIMIT, PER_TENANT, wait=WAIT)
    for i in range(50):
        admit(shares, "flood", 0.001 * i)
    shares.admitted += LIMIT - PER_TENANT
    assert [admit(shares, t, 0.1 + 0.001 * i) for i, t in enumerate("bbcc")] == [None] * 4
    assert shares.admitted == 2 * LIMIT
    assert [admit(shares, t, 0.2 + 0.001 * i) for i, t in enumerate("bbc")] == ["wait"] * 3
    (served,) = shares.done(0.3)
    assert served.tenant == "c"
    (served,) = shares.done(0.31)
    assert served.tenant == "b"


def test_the_heaviest_is_refused_at_once_even_with_a_wait() -> None:
    shares = Shares(LIMIT, PER_TENANT, wait=WAIT)
    admit(shares, "b", 0.0)
    assert [admit(shares, "a", 0.01 + 0.001 * i) for i in range(4)] == [None, None, SHARE, SHARE]


def test_a_tenant_alone_is_refused_at_once_even_with_a_wait() -> None:
    shares = Shares(LIMIT, PER_TENANT, wait=WAIT)
    verdicts = [admit(shares, "a", 0.001 * i) for i in range(LIMIT + 2)]
    assert verdicts == [None] * (LIMIT - PER_TENANT) + [SHARE] * (PER_TENANT + 2)
    assert shares.queue == []


def test_without_a_wait_a_lighter_tenant_past_its_room_is_refused_as_before() -> None:
    shares = Shares(LIMIT, PER_TENANT)
    for i in range(50):
        admit(shares, "flood", 0.001 * i)
    steady = [admit(shares, "steady", 0.1 + 0.001 * i) for i in range(8)]
    assert steady == [None] * (LIMIT - PER_TENANT) + [CAPACITY] * 2
