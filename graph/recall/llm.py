"""The real query transformer and grader, over any OpenAI-compatible chat-completions API.

Failures never reach the caller of a search: slow, failing or malformed answers raise
`LLMError` here, and the recall engine falls back to the single-shot result. Retries are
bounded (transport errors, 429 and 5xx only), every request has a timeout, and a cancel
event stops waiting between attempts.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Sequence
from typing import Any

import httpx

from graph.config import LLMSettings
from graph.observability import tracing
from graph.recall.providers import Grade
from graph.write.facts import Fact

MAX_VARIANT_CHARS = 300
MAX_ANSWER_CHARS = 1_000
_RETRYABLE = {408, 409, 429, 500, 502, 503, 504}


class LLMError(Exception):
    """The endpoint did not give a usable answer (timeout, error status, malformed body)."""


class ChatClient:
    def __init__(self, settings: LLMSettings, *, transport: httpx.BaseTransport | None = None):
        if not settings.base_url:
            raise ValueError("FACTGRAPH_LLM_BASE_URL is not set")
        self.settings = settings
        headers = {"Authorization": f"Bearer {settings.api_key}"} if settings.api_key else {}
        self._http = httpx.Client(
            base_url=settings.base_url.rstrip("/") + "/",
            headers=headers,
            timeout=httpx.Timeout(settings.timeout),
            transport=transport,
        )

    def close(self) -> None:
        self._http.close()

    def complete(
        self,
        system: str,
        user: str,
        *,
        cancel: threading.Event | None = None,
        json_mode: bool = False,
    ) -> str:
        """The assistant's message text; raises LLMError when no usable answer came."""
        body: dict[str, Any] = {
            "model": self.settings.model,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
        }
        if json_mode:
            body["response_format"] = {"type": "json_object"}
        with tracing.model_span("chat", self.settings.model, len(body["messages"])):
            return self._post(body, cancel)

    def _post(self, body: dict[str, Any], cancel: threading.Event | None) -> str:
        last = "no attempt made"
        for attempt in range(self.settings.max_retries + 1):
            if cancel is not None and cancel.is_set():
                raise LLMError("cancelled")
            try:
                response = self._http.post("chat/completions", json=body)
            except httpx.TimeoutException:
                last = f"timed out after {self.settings.timeout:g}s"
            except httpx.TransportError as exc:
                last = f"transport error: {type(exc).__name__}"
            else:
                if response.status_code == 200:
                    return _message_text(response)
                last = f"HTTP {response.status_code}"
                if response.status_code not in _RETRYABLE:
                    break
            if attempt < self.settings.max_retries:
                delay = 0.2 * 2**attempt
                if cancel is not None:
                    if cancel.wait(delay):
                        raise LLMError("cancelled")
                else:
                    time.sleep(delay)
        raise LLMError(f"chat completion failed: {last}")


def _message_text(response: httpx.Response) -> str:
    try:
        content = response.json()["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise LLMError("malformed chat completion body") from None
    if not isinstance(content, str) or not content.strip():
        raise LLMError("empty chat completion")
    return content.strip()


def _json_object(text: str) -> Any:
    """Parse JSON even when the model wrapped it in prose or a code fence."""
    match = re.search(r"[\[{].*[\]}]", text, re.DOTALL)
    if match is None:
        raise LLMError("no JSON in the answer")
    try:
        return json.loads(match.group(0))
    except ValueError:
        raise LLMError("malformed JSON in the answer") from None


class LLMTransformer:
    """Rewrites a query into variants (one call) and writes hypothetical answers (HyDE)."""

    def __init__(self, client: ChatClient, cancel: threading.Event | None = None) -> None:
        self.client = client
        self.cancel = cancel

    def variants(self, query: str, n: int) -> list[str]:
        if n <= 0:
            return []
        text = self.client.complete(
            "You rewrite search queries for a personal memory store. Answer with a JSON "
            'object {"queries": [...]} holding differently worded queries with the same '
            "meaning; no commentary.",
            f"Give {n} rewordings of: {query}",
            cancel=self.cancel,
            json_mode=True,
        )
        parsed = _json_object(text)
        items = parsed.get("queries") if isinstance(parsed, dict) else parsed
        if not isinstance(items, list):
            raise LLMError("expected a list of queries")
        out: list[str] = []
        for item in items:
            if isinstance(item, str) and item.strip() and item.strip() != query:
                variant = item.strip()[:MAX_VARIANT_CHARS]
                if variant not in out:
                    out.append(variant)
        return out[:n]

    def hypothetical_answer(self, query: str) -> str:
        text = self.client.complete(
            "Write one short, plausible sentence that would answer the question if it were "
            "stored in a personal memory. Invent specifics if needed; no hedging.",
            query,
            cancel=self.cancel,
        )
        return text[:MAX_ANSWER_CHARS]


class LLMGrader:
    """Asks the model whether the retrieved facts answer the query, and for a better query."""

    def __init__(
        self, client: ChatClient, cancel: threading.Event | None = None, shown: int = 10
    ) -> None:
        self.client = client
        self.cancel = cancel
        self.shown = shown

    def grade(self, query: str, facts: Sequence[Fact]) -> Grade:
        listing = "\n".join(f"{i + 1}. {f.text}" for i, f in enumerate(facts[: self.shown]))
        text = self.client.complete(
            "You judge retrieval for a memory store. Answer with a JSON object "
            '{"sufficient": true|false, "score": 0..1, "reason": "...", '
            '"reformulation": "a better search query, or null"}.',
            f"Question: {query}\nRetrieved facts:\n{listing or '(none)'}",
            cancel=self.cancel,
            json_mode=True,
        )
        parsed = _json_object(text)
        if not isinstance(parsed, dict) or not isinstance(parsed.get("sufficient"), bool):
            raise LLMError("grade without a boolean 'sufficient'")
        score = parsed.get("score", 1.0 if parsed["sufficient"] else 0.0)
        if not isinstance(score, int | float) or isinstance(score, bool):
            raise LLMError("grade with a non-numeric score")
        reformulation = parsed.get("reformulation")
        if not isinstance(reformulation, str) or not reformulation.strip():
            reformulation = None
        return Grade(
            sufficient=parsed["sufficient"],
            score=float(min(max(score, 0.0), 1.0)),
            reason=str(parsed.get("reason") or "")[:500],
            reformulation=reformulation[:MAX_VARIANT_CHARS] if reformulation else None,
        )
