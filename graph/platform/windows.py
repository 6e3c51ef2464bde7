"""Where a text longer than the model's window is cut: overlapping windows on the model's tokens.

The model sees at most `max_tokens` tokens (512 for e5-small-v2, its special tokens and the
document prefix included) and silently drops the rest, so the end of a long text was never
embedded. `Windows.split` cuts a text into windows that each fit with the context embedded
beside them (the prefix, the fact's situating line: graph/write/chunks.py), overlapping by about
OVERLAP tokens so that a sentence across a cut is whole in one of them. Cuts fall between
paragraphs where one is near, else between lines or sentences, else between words: a window
is then about one topic of a long message, and a question about that topic meets it alone.

Counting uses the model's own tokenizer (a copy without its truncation), so a window never
exceeds what the model reads. A text that fits is one window, found without tokenizing when
the tokenizer cannot make more tokens than characters (WordPiece: every token covers at least
one character), so short texts pay nothing for this.
"""

from __future__ import annotations

from collections.abc import Sequence

from tokenizers import Tokenizer
from tokenizers.models import WordPiece

OVERLAP = 64  # tokens that two consecutive windows share
# Tokens kept free in every window: a window's text, tokenized alone, may come out a token or
# two longer than its tokens counted inside the whole text (a cut the tokenizer reads otherwise).
MARGIN = 8
# The least a window holds for the text, however long the context embedded beside it.
MIN_BUDGET = 64


class Windows:
    """Cuts texts into windows that fit a model of `max_tokens` tokens."""

    def __init__(self, tokenizer: Tokenizer, max_tokens: int, overlap: int = OVERLAP) -> None:
        # A copy: the model's own tokenizer truncates at its window, and may pad.
        self._tokenizer = Tokenizer.from_str(tokenizer.to_str())
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()
        self.max_tokens = max_tokens
        self.overlap = overlap
        self._specials = self._tokenizer.num_special_tokens_to_add(False)
        self._chars_bound = isinstance(self._tokenizer.model, WordPiece)

    @classmethod
    def of(cls, tokenizer: Tokenizer, overlap: int = OVERLAP) -> Windows:
        """For a model's tokenizer as fastembed loads it: its truncation is the model's window."""
        truncation = tokenizer.truncation or {}
        return cls(tokenizer, int(truncation.get("max_length") or 512), overlap)

    def tokens(self, text: str) -> int:
        """How many tokens `text` makes, special tokens left out."""
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def split(self, text: str, context: str = "") -> list[tuple[int, int]]:
        """The windows of `text` as (start, end) character offsets, in order; one window
        (0, len(text)) when the text fits beside `context`, the text embedded with each window."""
        whole = [(0, len(text))]
        if self._chars_bound and len(context) + len(text) + self._specials <= self.max_tokens:
            return whole
        fixed = self._specials + (self.tokens(context) if context else 0)
        budget = max(MIN_BUDGET, self.max_tokens - fixed - MARGIN)
        offsets: Sequence[tuple[int, int]] = self._tokenizer.encode(
            text, add_special_tokens=False
        ).offsets
        if len(offsets) + fixed <= self.max_tokens:
            return whole
        spans = self._token_spans(text, offsets, budget)
        windows: list[tuple[int, int]] = []
        for n, (first, last) in enumerate(spans):
            start = 0 if n == 0 else offsets[first][0]
            end = len(text) if n == len(spans) - 1 else offsets[last - 1][1]
            windows.append((start, end))
        return windows

    def _token_spans(
        self, text: str, offsets: Sequence[tuple[int, int]], budget: int
    ) -> list[tuple[int, int]]:
        """Windows as token ranges [first, last) of at most `budget` tokens."""
        count = len(offsets)
        ranks = [-1] + [_cut_rank(text, offsets[i - 1][1], offsets[i][0]) for i in range(1, count)]
        overlap = min(self.overlap, budget // 4)
        step = max(1, budget // 8)  # how many tokens further back a cut one rank better may lie
        spans: list[tuple[int, int]] = []
        first = 0
        while count - first > budget:
            limit = first + budget
            cuts = [i for i in range(first + budget // 2 + 1, limit + 1) if ranks[i] >= 0]
            last = max(cuts, key=lambda i: (i - first) + ranks[i] * step) if cuts else limit
            spans.append((first, last))
            low = max(first + 1, last - overlap)
            starts = [i for i in range(low, max(low, last - overlap // 4) + 1) if ranks[i] >= 0]
            first = (
                max(starts, key=lambda i: ranks[i] * max(1, overlap // 2) - (i - low))
                if starts
                else low
            )
        spans.append((first, count))
        return spans


def _cut_rank(text: str, before: int, after: int) -> int:
    """How good a cut is where the text between two tokens is text[before:after]: 3 between
    paragraphs, 2 between lines, 1 after a sentence, 0 between words, -1 inside a word."""
    gap = text[before:after]
    if not gap:
        return -1
    if gap.count("\n") >= 2:
        return 3
    if "\n" in gap:
        return 2
    return 1 if text[before - 1] in ".!?;:" else 0
