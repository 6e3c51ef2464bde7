"""Deep recall: multi-query, HyDE, and the gated grade-then-reformulate loop.

Opt-in and offline by default: without an LLM endpoint configured, the transformer and the
LLM grader are absent and every option is a silent no-op that makes no network call.
"""

from graph.recall.engine import DeepRecall, IterativeResult, Pass
from graph.recall.gate import is_hard
from graph.recall.llm import ChatClient, LLMError, LLMGrader, LLMTransformer
from graph.recall.offline import OfflineGrader
from graph.recall.providers import Grade, QueryTransformer, RetrievalGrader

__all__ = [
    "ChatClient",
    "DeepRecall",
    "Grade",
    "IterativeResult",
    "LLMError",
    "LLMGrader",
    "LLMTransformer",
    "OfflineGrader",
    "Pass",
    "QueryTransformer",
    "RetrievalGrader",
    "is_hard",
]
