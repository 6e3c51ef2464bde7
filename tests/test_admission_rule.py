"""The rule that shares the admission slots between tenants (resolvers/http/admission.py,
`Shares`), driven with exact times: a tenant that floods is held to its share while another is
served, and the other is never refused for the room the flood holds.

tests/test_overload.py runs the same rule inside the service, over HTTP.
"""

from __future__ import annotations

from resolvers.http.admission import Shares

LIMIT = 8  # FACTGRAPH_MAX_QUEUE on 2 cores
SHARE = 2  # FACTGRAPH_MAX_QUEUE_PER_TENANT: a quarter of it


def admit(shares: Shares, tenant: str, now: float) -> str | None:
    """One request: its verdict, and its slot taken if admitted."""
    refusal = shares.refusal(tenant, now)
    if refusal is None:
        shares.take(tenant)
        shares.admitted += 1
    return refusal


def finish(shares: Shares, tenant: str) -> None:
    shares.give_back(tenant)
    shares.admitted -= 1


def test_a_tenant_alone_may_hold_all_but_the_room_kept_for_a_newcomer() -> None:
    shares = Shares(LIMIT, SHARE)
    verdicts = [admit(shares, "a", 0.001 * i) for i in range(LIMIT)]
    assert verdicts == [None] * (LIMIT - SHARE) + ["share"] * SHARE


def test_beside_another_tenant_the_one_sending_the_most_is_held_to_its_share() -> None:
    shares = Shares(LIMIT, SHARE)
    admit(shares, "b", 0.0)  # b is active: one request in progress
    verdicts = [admit(shares, "a", 0.01 + 0.001 * i) for i in range(5)]
    assert verdicts == [None, None, "share", "share", "share"]


def test_a_steady_tenant_is_admitted_though_the_flood_fills_every_slot() -> None:
    # The flood took its 6 slots while alone, and requests answered but still finishing hold
    # the other 2; it keeps sending. Then a steady tenant arrives, and its requests bunch up
    # (as when each takes a second): none is refused, every flood request is.
    shares = Shares(LIMIT, SHARE)
    for i in range(LIMIT - SHARE):
        assert admit(shares, "flood", 0.001 * i) is None
    shares.admitted += SHARE
    verdicts: dict[str, list[str | None]] = {"flood": [], "steady": []}
    for i in range(60):
        tenant = "steady" if i % 10 == 0 else "flood"
        verdicts[tenant].append(admit(shares, tenant, 1.0 + 0.01 * i))
    assert verdicts["steady"] == [None] * 6
    assert set(verdicts["flood"]) == {"share"}
    # Its share is what the flood leaves it (the flood counted at its own share): 8 - 2.
    assert admit(shares, "steady", 1.7) == "capacity"


def test_a_third_tenant_takes_from_the_steady_ones_share_only_what_it_holds() -> None:
    # Beside the flood, a tenant holding one slot (health checks from one address) leaves the
    # steady tenant 8 - 2 - 1.
    shares = Shares(LIMIT, SHARE)
    for i in range(10):
        admit(shares, "flood", 0.001 * i)
    assert admit(shares, "health", 0.05) is None
    steady = [admit(shares, "steady", 0.1 + 0.01 * i) for i in range(6)]
    assert steady == [None] * 5 + ["capacity"]


def test_no_number_of_made_up_tenants_passes_the_ceiling() -> None:
    # Without keys a tenant is a scope, so a client can be many tenants: beside a flood each
    # is "light", but each one holding a slot shrinks the share of the next.
    shares = Shares(LIMIT, SHARE)
    for i in range(20):
        admit(shares, "flood", 0.001 * i)
    verdicts = [admit(shares, f"scope-{i}", 0.1 + 0.001 * i) for i in range(50)]
    assert shares.admitted == 2 * LIMIT
    assert verdicts.count(None) == 2 * LIMIT - (LIMIT - SHARE)


def test_a_flood_that_starts_beside_a_steady_tenant_is_held_within_a_few_requests() -> None:
    # A steady tenant has sent 5 a second for a while; a flood of 30 starts at once. Its first
    # requests are the lighter tenant's (its rate has not built up yet); within a few it
    # outweighs the steady one and is held to its share.
    shares = Shares(LIMIT, SHARE)
    for i in range(10):
        admit(shares, "steady", 0.2 * i)
        finish(shares, "steady")
    flood = [admit(shares, "flood", 2.0 + 0.001 * i) for i in range(30)]
    assert flood[:SHARE] == [None] * SHARE
    assert flood.count(None) <= SHARE + 1 and flood[-1] == "share"


def test_every_tenant_keeps_its_minimum_whoever_fills_the_slots() -> None:
    # Answered requests still finishing fill the limit, and the steady tenant is, for the
    # moment, the one sending the most: it is still admitted up to its share.
    shares = Shares(LIMIT, SHARE)
    admit(shares, "flood", 0.0)
    shares.admitted = LIMIT
    steady = [admit(shares, "steady", 0.01 + 0.01 * i) for i in range(3)]
    assert steady == [None, None, "share"]


def test_a_tenant_quiet_for_the_active_window_no_longer_holds_the_flood_back() -> None:
    shares = Shares(LIMIT, SHARE)
    admit(shares, "b", 0.0)
    finish(shares, "b")
    assert [admit(shares, "a", 0.5 + 0.001 * i) for i in range(3)] == [None, None, "share"]
    for _ in range(2):
        finish(shares, "a")
    # b's last request was 2 s ago (ACTIVE): a is alone again and may use all but the room.
    later = [admit(shares, "a", 2.5 + 0.001 * i) for i in range(LIMIT)]
    assert later == [None] * (LIMIT - SHARE) + ["share"] * SHARE


def test_who_is_held_follows_who_sends_the_most_not_who_came_first() -> None:
    shares = Shares(LIMIT, SHARE)
    for i in range(3):  # a came first, and sends 3 requests
        admit(shares, "a", 0.001 * i)
    for i in range(10):  # b now sends far more
        admit(shares, "b", 0.1 + 0.001 * i)
    assert shares.held["b"] == SHARE, "the heavier b is held to its share"
    assert admit(shares, "a", 0.2) is None, "a, lighter now, is still admitted"
