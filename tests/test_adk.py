"""Google ADK on factgraph: ADK's own `Runner` and `InMemorySessionService` with a scripted model
(a `BaseLlm` that answers from a list, as ADK's own tests' MockModel does), and
`FactgraphMemoryService` against the real server: a session's events become facts with their
author as the subject, and ADK's `load_memory` tool reads them back in ADK's shapes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.events.event import Event
from google.adk.memory.base_memory_service import SearchMemoryResponse
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools.load_memory_tool import load_memory_tool as load_memory
from google.genai import types
from pydantic import Field

from factgraph_client import AsyncClient
from factgraph_client.adk import FactgraphMemoryService, partition_of

APP = "shop"


class ScriptedLlm(BaseLlm):
    """Answers each model call with the next scripted response and records the request."""

    model: str = "scripted"
    responses: list[LlmResponse] = Field(default_factory=list)
    requests: list[LlmRequest] = Field(default_factory=list)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.requests.append(llm_request)
        yield self.responses.pop(0)


def says(text: str) -> LlmResponse:
    return LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))


def calls(name: str, **args: Any) -> LlmResponse:
    part = types.Part.from_function_call(name=name, args=args)
    return LlmResponse(content=types.Content(role="model", parts=[part]))


def user(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


async def run(runner: Runner, user_id: str, session_id: str, text: str) -> list[Event]:
    return [
        event
        async for event in runner.run_async(
            user_id=user_id, session_id=session_id, new_message=user(text)
        )
    ]


def test_adk_runner_remembers_a_session_and_load_memory_finds_it_in_the_next(
    server_url: str, scope: str
) -> None:
    async def main() -> None:
        async with AsyncClient(server_url, scope=scope, timeout=300) as fg:
            memory = FactgraphMemoryService(fg)
            sessions = InMemorySessionService()
            llm = ScriptedLlm()
            agent = LlmAgent(name="helper", model=llm, tools=[load_memory])
            runner = Runner(
                app_name=APP, agent=agent, session_service=sessions, memory_service=memory
            )

            first = await sessions.create_session(app_name=APP, user_id="ana")
            llm.responses = [says("Noted: teal it is.")]
            await run(runner, "ana", first.id, "My favourite colour is teal")
            done = await sessions.get_session(app_name=APP, user_id="ana", session_id=first.id)
            assert done is not None
            await memory.add_session_to_memory(done)
            await memory.add_session_to_memory(done)  # again: nothing written twice

            # Each event is a fact whose subject is its author, in the user's partition.
            facts = (await fg.timeline(first=10, partition=partition_of(APP, "ana"))).items
            assert sorted((f.subject, f.text) for f in facts) == [
                ("helper", "Noted: teal it is."),
                ("user", "My favourite colour is teal"),
            ]
            assert {f.session_id for f in facts} == {first.id}

            # A new session: the scripted model calls ADK's load_memory, which searches here.
            second = await sessions.create_session(app_name=APP, user_id="ana")
            llm.responses = [
                calls("load_memory", query="favourite colour"),
                says("Your favourite colour is teal."),
            ]
            events = await run(runner, "ana", second.id, "What is my favourite colour?")
            assert events[-1].content is not None and events[-1].content.parts
            assert events[-1].content.parts[0].text == "Your favourite colour is teal."
            answered = [
                part.function_response
                for content in llm.requests[-1].contents
                for part in content.parts or []
                if part.function_response is not None
            ]
            loaded = (answered[0].response or {})["result"].memories
            assert [(m.author, m.content.parts[0].text) for m in loaded] == [
                ("user", "My favourite colour is teal"),
                ("helper", "Noted: teal it is."),
            ]

            # Another user of the same app reads nothing of Ana's.
            other = await memory.search_memory(
                app_name=APP, user_id="bob", query="favourite colour"
            )
            assert other.memories == []

    asyncio.run(main())


def test_search_memory_answers_in_adks_shapes_and_delete_memory_forgets(
    server_url: str, scope: str
) -> None:
    async def main() -> None:
        async with AsyncClient(server_url, scope=scope, timeout=300) as fg:
            memory = FactgraphMemoryService(fg)
            said = Event(
                id="e1",
                author="user",
                invocation_id="i1",
                timestamp=1_767_225_600.0,  # 2026-01-01T00:00:00Z
                content=user("I am allergic to peanuts"),
            )
            thought = Event(
                id="e2",
                author="helper",
                invocation_id="i1",
                content=types.Content(
                    role="model", parts=[types.Part(text="(private reasoning)", thought=True)]
                ),
            )
            await memory.add_events_to_memory(
                app_name=APP, user_id="ana", events=[said, thought], session_id="s1"
            )
            await memory.add_events_to_memory(
                app_name=APP, user_id="ana", events=[said], session_id="s1"
            )

            found = await memory.search_memory(app_name=APP, user_id="ana", query="allergies")
            assert isinstance(found, SearchMemoryResponse)
            assert len(found.memories) == 1  # once, and no thought
            entry = found.memories[0]
            assert entry.author == "user"
            assert entry.timestamp == "2026-01-01T00:00:00+00:00"
            assert entry.content.role == "user"
            assert entry.content.parts and entry.content.parts[0].text == (
                "I am allergic to peanuts"
            )
            assert entry.id is not None and entry.custom_metadata["score"] > 0

            await memory.delete_memory(app_name=APP, user_id="bob", memory_id=entry.id)
            assert (
                len(
                    (
                        await memory.search_memory(app_name=APP, user_id="ana", query="allergies")
                    ).memories
                )
                == 1
            )  # another user cannot delete Ana's memory
            await memory.delete_memory(app_name=APP, user_id="ana", memory_id=entry.id)
            gone = await memory.search_memory(app_name=APP, user_id="ana", query="allergies")
            assert gone.memories == []

    asyncio.run(main())
