"""The OpenAI Agents SDK on factgraph: the SDK's own session tests run against
`FactgraphSession`, and an agent whose scripted model calls the memory tools.

The tests under "The SDK's session tests" are copied from openai-agents-python (0.22-0.25,
tests/extensions/memory/test_redis_session.py and test_mongodb_session.py, the ones that are
not about Redis or MongoDB themselves); only the helpers that build a session
(`_create_test_session`, `_create_redis_session`, `_make_session`) are ours. The model is the
SDK's own `agents.testing.ScriptedModel`; `get_text_message` (the SDK's tests/test_responses.py)
is the SDK's `assistant_message`. Everything else runs against the real server.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from agents import Agent, RunConfig, Runner, TResponseInputItem, set_tracing_disabled
from agents.memory import SessionSettings
from agents.testing import ScriptedModel, function_call
from agents.testing import assistant_message as get_text_message

from factgraph_client import AsyncClient
from factgraph_client.openai_agents import FactgraphSession, factgraph_tools

pytestmark = pytest.mark.anyio

_server: dict[str, str] = {}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _factgraph(server_url: str, scope: str) -> Iterator[None]:
    """Where the helpers below build their sessions: the suite's server, a fresh scope."""
    _server.update(url=server_url, scope=scope)
    set_tracing_disabled(True)  # no trace export to OpenAI from a test
    yield
    _server.clear()


def _make_session(session_id: str = "test-session", **kwargs: Any) -> FactgraphSession:
    return FactgraphSession.connect(
        session_id, _server["url"], scope=_server["scope"], timeout=300, **kwargs
    )


async def _create_redis_session(session_id: str, **kwargs: Any) -> FactgraphSession:
    return _make_session(session_id, **kwargs)


async def _create_test_session(session_id: str | None = None) -> FactgraphSession:
    if session_id is None:
        session_id = f"test_session_{uuid.uuid4().hex[:8]}"
    session = _make_session(session_id)
    await session.clear_session()
    return session


@pytest.fixture
def agent() -> Agent[Any]:
    return Agent(name="test", model=ScriptedModel())


@pytest.fixture
async def session() -> FactgraphSession:
    return _make_session()


# -- The SDK's session tests (test_redis_session.py) ------------------------------------------
async def test_redis_session_direct_ops() -> None:
    """Test direct database operations of RedisSession."""
    session = await _create_test_session()

    try:
        # 1. Add items
        items: list[TResponseInputItem] = [
            {"role": "user", "content": "Hello"},
            {"role": "assistant", "content": "Hi there!"},
        ]
        await session.add_items(items)

        # 2. Get items and verify
        retrieved = await session.get_items()
        assert len(retrieved) == 2
        assert retrieved[0].get("content") == "Hello"
        assert retrieved[1].get("content") == "Hi there!"

        # 3. Pop item
        popped = await session.pop_item()
        assert popped is not None
        assert popped.get("content") == "Hi there!"
        retrieved_after_pop = await session.get_items()
        assert len(retrieved_after_pop) == 1
        assert retrieved_after_pop[0].get("content") == "Hello"

        # 4. Clear session
        await session.clear_session()
        retrieved_after_clear = await session.get_items()
        assert len(retrieved_after_clear) == 0

    finally:
        await session.close()


async def test_runner_integration(agent: Agent[Any]) -> None:
    """Test that RedisSession works correctly with the agent Runner."""
    session = await _create_test_session()

    try:
        # First turn
        assert isinstance(agent.model, ScriptedModel)
        agent.model.enqueue([get_text_message("San Francisco")])
        result1 = await Runner.run(
            agent,
            "What city is the Golden Gate Bridge in?",
            session=session,
        )
        assert result1.final_output == "San Francisco"

        # Second turn
        agent.model.enqueue([get_text_message("California")])
        result2 = await Runner.run(agent, "What state is it in?", session=session)
        assert result2.final_output == "California"

        # Verify history was passed to the model on the second turn
        last_input = agent.model.calls[-1].input
        assert len(last_input) > 1
        assert any("Golden Gate Bridge" in str(item.get("content", "")) for item in last_input)

    finally:
        await session.close()


async def test_session_isolation() -> None:
    """Test that different session IDs result in isolated conversation histories."""
    session1 = await _create_redis_session("session_1")
    session2 = await _create_redis_session("session_2")

    try:
        agent = Agent(name="test", model=ScriptedModel())

        # Clean up any existing data
        await session1.clear_session()
        await session2.clear_session()

        # Interact with session 1
        assert isinstance(agent.model, ScriptedModel)
        agent.model.enqueue([get_text_message("I like cats.")])
        await Runner.run(agent, "I like cats.", session=session1)

        # Interact with session 2
        agent.model.enqueue([get_text_message("I like dogs.")])
        await Runner.run(agent, "I like dogs.", session=session2)

        # Go back to session 1 and check its memory
        agent.model.enqueue([get_text_message("You said you like cats.")])
        result = await Runner.run(agent, "What animal did I say I like?", session=session1)
        assert "cats" in result.final_output.lower()
        assert "dogs" not in result.final_output.lower()
    finally:
        try:
            await session1.clear_session()
            await session2.clear_session()
        except Exception:
            pass  # Ignore cleanup errors
        await session1.close()
        await session2.close()


async def test_get_items_with_limit() -> None:
    """Test the limit parameter in get_items."""
    session = await _create_test_session()

    try:
        items: list[TResponseInputItem] = [
            {"role": "user", "content": "1"},
            {"role": "assistant", "content": "2"},
            {"role": "user", "content": "3"},
            {"role": "assistant", "content": "4"},
        ]
        await session.add_items(items)

        # Get last 2 items
        latest_2 = await session.get_items(limit=2)
        assert len(latest_2) == 2
        assert latest_2[0].get("content") == "3"
        assert latest_2[1].get("content") == "4"

        # Get all items
        all_items = await session.get_items()
        assert len(all_items) == 4

        # Get more than available
        more_than_all = await session.get_items(limit=10)
        assert len(more_than_all) == 4

        # Get 0 items
        zero_items = await session.get_items(limit=0)
        assert len(zero_items) == 0

    finally:
        await session.close()


async def test_pop_from_empty_session() -> None:
    """Test that pop_item returns None on an empty session."""
    session = await _create_redis_session("empty_session")
    try:
        await session.clear_session()
        popped = await session.pop_item()
        assert popped is None
    finally:
        await session.close()


async def test_add_empty_items_list() -> None:
    """Test that adding an empty list of items is a no-op."""
    session = await _create_test_session()

    try:
        initial_items = await session.get_items()
        assert len(initial_items) == 0

        await session.add_items([])

        items_after_add = await session.get_items()
        assert len(items_after_add) == 0

    finally:
        await session.close()


async def test_unicode_content() -> None:
    """Test that session correctly stores and retrieves unicode/non-ASCII content."""
    session = await _create_test_session()

    try:
        # Add unicode content to the session
        items: list[TResponseInputItem] = [
            {"role": "user", "content": "こんにちは"},
            {"role": "assistant", "content": "😊👍"},
            {"role": "user", "content": "Привет"},
        ]
        await session.add_items(items)

        # Retrieve items and verify unicode content
        retrieved = await session.get_items()
        assert retrieved[0].get("content") == "こんにちは"
        assert retrieved[1].get("content") == "😊👍"
        assert retrieved[2].get("content") == "Привет"

    finally:
        await session.close()


async def test_data_integrity_with_problematic_strings() -> None:
    """Test that session preserves data integrity with strings that could break parsers."""
    session = await _create_test_session()

    try:
        # Add items with various problematic string patterns that could break JSON parsing,
        # string escaping, or other serialization mechanisms
        items: list[TResponseInputItem] = [
            {"role": "user", "content": "O'Reilly"},  # Single quote
            {"role": "assistant", "content": "DROP TABLE sessions;"},  # SQL-like command
            {"role": "user", "content": '"SELECT * FROM users WHERE name = "admin";"'},
            {"role": "assistant", "content": "Robert'); DROP TABLE students;--"},
            {"role": "user", "content": '{"malicious": "json"}'},  # JSON-like string
            {"role": "assistant", "content": "\\n\\t\\r Special escapes"},  # Escape sequences
            {"role": "user", "content": "Normal message"},  # Control case
        ]
        await session.add_items(items)

        # Retrieve all items and verify they are stored exactly as provided
        # This ensures the storage layer doesn't modify, escape, or corrupt data
        retrieved = await session.get_items()
        assert len(retrieved) == len(items)
        assert retrieved[0].get("content") == "O'Reilly"
        assert retrieved[1].get("content") == "DROP TABLE sessions;"
        assert retrieved[2].get("content") == '"SELECT * FROM users WHERE name = "admin";"'
        assert retrieved[3].get("content") == "Robert'); DROP TABLE students;--"
        assert retrieved[4].get("content") == '{"malicious": "json"}'
        assert retrieved[5].get("content") == "\\n\\t\\r Special escapes"
        assert retrieved[6].get("content") == "Normal message"

    finally:
        await session.close()


async def test_concurrent_access() -> None:
    """Test concurrent access to the same session to verify data integrity."""
    session = await _create_test_session("concurrent_test")

    try:
        # Prepare items for concurrent writing
        async def add_messages(start_idx: int, count: int) -> None:
            items: list[TResponseInputItem] = [
                {"role": "user", "content": f"Message {start_idx + i}"} for i in range(count)
            ]
            await session.add_items(items)

        # Run multiple concurrent add operations
        tasks = [
            add_messages(0, 5),  # Messages 0-4
            add_messages(5, 5),  # Messages 5-9
            add_messages(10, 5),  # Messages 10-14
        ]

        await asyncio.gather(*tasks)

        # Verify all items were added
        retrieved = await session.get_items()
        assert len(retrieved) == 15

        # Extract message numbers and verify all are present
        contents = [item.get("content") for item in retrieved]
        expected_messages = [f"Message {i}" for i in range(15)]

        # Check that all expected messages are present (order may vary due to concurrency)
        for expected in expected_messages:
            assert expected in contents

    finally:
        await session.close()


async def test_session_settings_default() -> None:
    """Test that session_settings defaults to empty SessionSettings."""
    session = await _create_test_session()

    try:
        # Should have default SessionSettings
        assert isinstance(session.session_settings, SessionSettings)
        assert session.session_settings.limit is None
    finally:
        await session.close()


async def test_get_items_explicit_limit_overrides_session_settings() -> None:
    """Test that explicit limit parameter overrides session_settings."""
    session = _make_session("explicit_override_test", session_settings=SessionSettings(limit=5))

    try:
        await session.clear_session()

        # Add 10 items
        items: list[TResponseInputItem] = [
            {"role": "user", "content": f"Message {i}"} for i in range(10)
        ]
        await session.add_items(items)

        # Explicit limit=2 should override session_settings.limit=5
        retrieved = await session.get_items(limit=2)
        assert len(retrieved) == 2
        assert retrieved[0].get("content") == "Message 8"
        assert retrieved[1].get("content") == "Message 9"
    finally:
        await session.close()


# -- The SDK's session tests (test_mongodb_session.py) ----------------------------------------
async def test_pop_item_returns_last(session: FactgraphSession) -> None:
    """pop_item must return and remove the most recently added item."""
    items: list[TResponseInputItem] = [
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "second"},
    ]
    await session.add_items(items)

    popped = await session.pop_item()
    assert popped is not None
    assert popped.get("content") == "second"

    remaining = await session.get_items()
    assert len(remaining) == 1
    assert remaining[0].get("content") == "first"


async def test_multiple_add_calls_accumulate(session: FactgraphSession) -> None:
    """Items from separate add_items calls all appear in get_items."""
    await session.add_items([{"role": "user", "content": "a"}])
    await session.add_items([{"role": "assistant", "content": "b"}])
    await session.add_items([{"role": "user", "content": "c"}])

    items = await session.get_items()
    assert [i.get("content") for i in items] == ["a", "b", "c"]


@pytest.mark.parametrize("use_dictionary", [False, True], ids=["class", "dictionary"])
async def test_session_settings_limit_used_as_default(use_dictionary: bool) -> None:
    """session_settings.limit is applied when no explicit limit is given."""
    s = _make_session(
        "ls-test",
        session_settings={"limit": 2} if use_dictionary else SessionSettings(limit=2),
    )
    assert isinstance(s.session_settings, SessionSettings)
    await s.add_items([{"role": "user", "content": str(i)} for i in range(5)])

    result = await s.get_items()
    assert len(result) == 2
    assert result[0].get("content") == "3"
    assert result[1].get("content") == "4"


async def test_clear_does_not_affect_other_sessions() -> None:
    """Clearing one session must leave sibling sessions untouched."""
    s1 = _make_session("s1")
    s2 = _make_session("s2")

    await s1.add_items([{"role": "user", "content": "keep"}])
    await s2.add_items([{"role": "user", "content": "delete"}])

    await s2.clear_session()

    assert len(await s1.get_items()) == 1
    assert await s2.get_items() == []


async def test_runner_with_session_settings_limit(agent: Agent[Any]) -> None:
    """RunConfig.session_settings.limit must cap the history sent to the model."""
    session = _make_session("limit-test", session_settings=SessionSettings(limit=100))

    history: list[TResponseInputItem] = [
        {"role": "user", "content": f"Turn {i}"} for i in range(10)
    ]
    await session.add_items(history)

    assert isinstance(agent.model, ScriptedModel)
    agent.model.enqueue([get_text_message("Got it")])
    await Runner.run(
        agent,
        "New question",
        session=session,
        run_config=RunConfig(session_settings=SessionSettings(limit=2)),
    )

    last_input = agent.model.calls[-1].input
    history_items = [i for i in last_input if i.get("content") != "New question"]
    assert len(history_items) == 2


# -- factgraph's own: what a session kept in factgraph adds ----------------------------------
async def test_a_session_survives_a_restart_and_is_searchable(agent: Agent[Any]) -> None:
    first = _make_session("support-42")
    assert isinstance(agent.model, ScriptedModel)
    agent.model.enqueue([get_text_message("Your order ships from Rotterdam on Friday.")])
    await Runner.run(agent, "When does my espresso machine ship?", session=first)
    said = await first.get_items()
    await first.close()

    # A new process: a new client, the same session id, the same history, in order.
    again = _make_session("support-42")
    try:
        assert await again.get_items() == said
        assert [item.get("role") for item in said] == ["user", "assistant"]
        found = await again.search("which port does the order leave from?", top_k=1)
        assert found[0][0] == said[1]
    finally:
        await again.close()


async def test_an_item_larger_than_the_metadata_bound_comes_back_whole(
    session: FactgraphSession,
) -> None:
    long_item: TResponseInputItem = {"role": "user", "content": "log line\n" * 1_800}
    await session.add_items([{"role": "user", "content": "before"}, long_item])
    assert await session.get_items() == [{"role": "user", "content": "before"}, long_item]


async def test_an_agents_scripted_tool_calls_remember_and_search_the_real_server(
    server_url: str, scope: str
) -> None:
    model = ScriptedModel()
    async with AsyncClient(server_url, scope=scope, timeout=300) as fg:
        agent = Agent(name="assistant", model=model, tools=factgraph_tools(fg))
        model.extend(
            [
                [
                    function_call(
                        "remember",
                        {"content": "Ana lives in Lisbon", "subject": "Ana"},
                        call_id="c1",
                    )
                ],
                [get_text_message("I will remember that.")],
                [function_call("search", {"query": "where does Ana live?"}, call_id="c2")],
                [get_text_message("Ana lives in Lisbon.")],
                [function_call("remember", {"content": ""}, call_id="c3")],
                [get_text_message("Sorry, that was empty.")],
            ]
        )
        first = await Runner.run(agent, "Please remember: Ana lives in Lisbon.")
        assert first.final_output == "I will remember that."
        stored = (await fg.search("Ana's home city", top_k=1)).hits
        assert [h.fact.text for h in stored] == ["Ana lives in Lisbon"]
        assert (await fg.get(stored[0].fact.id)).subject == "Ana"  # type: ignore[union-attr]

        second = await Runner.run(agent, "Where does Ana live?")
        assert second.final_output == "Ana lives in Lisbon."
        outputs = [
            item for item in model.calls[3].input if item.get("type") == "function_call_output"
        ]
        found = json.loads(str(outputs[0]["output"]))
        assert found["memories"][0]["text"] == "Ana lives in Lisbon"
        assert found["memories"][0]["id"] == stored[0].fact.id

        # Bad input reaches the model as the tool's result, naming the field; nothing written.
        await Runner.run(agent, "Remember nothing.")
        refused = [
            item for item in model.calls[5].input if item.get("type") == "function_call_output"
        ]
        assert json.loads(str(refused[-1]["output"]))["field"] == "content"
        assert len((await fg.timeline(first=10)).items) == 1
        model.assert_complete()
