"""The time enricher: relative time expressions resolved against the fact's valid time.

"I went to the support group yesterday", said on 8 May 2023, is about 7 May 2023. The
absolute dates go into the fact's index text (never its text), so a later question that names
the date, the month or the year finds the turn. Rules only, English only: what a person says
in conversation ("yesterday", "last week", "next month", "two years ago", "last Friday",
"in three days"), each resolved the way a reader of the conversation would.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "a couple of": 2,
    "a couple": 2,
    "a few": 3,
    "several": 3,
}
_COUNT = (
    r"(?P<count>\d{1,3}|a couple of|a couple|a few|several|an?|one|two|three|four|five|six"
    r"|seven|eight|nine|ten|eleven|twelve)"
)
_UNIT = r"(?P<unit>day|week|month|year)s?"
_WEEKDAY = r"(?P<weekday>" + "|".join(WEEKDAYS) + r")"

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.IGNORECASE))
    for kind, pattern in (
        ("day_before_yesterday", r"\bthe day before yesterday\b"),
        ("day_after_tomorrow", r"\bthe day after tomorrow\b"),
        ("yesterday", r"\b(?:yesterday|last night)\b"),
        ("today", r"\b(?:today|tonight|this (?:morning|afternoon|evening))\b"),
        ("tomorrow", r"\btomorrow\b"),
        ("ago", r"\b" + _COUNT + r"\s+" + _UNIT + r"\s+ago\b"),
        ("in", r"\bin\s+" + _COUNT + r"\s+" + _UNIT + r"\b"),
        ("relative_weekday", r"\b(?P<which>last|next|this|past|coming)\s+" + _WEEKDAY + r"\b"),
        (
            "relative_period",
            r"\b(?P<which>last|next|this|past|coming)\s+(?P<period>week|weekend|month|year)\b",
        ),
        ("weekday", r"\b(?:on\s+)?" + _WEEKDAY + r"\b"),
    )
)


def _day(d: date) -> str:
    return f"{d.day} {d.strftime('%B %Y')}"


def _month(year: int, month: int) -> str:
    return date(year, month, 1).strftime("%B %Y")


def _shift_month(d: date, months: int) -> tuple[int, int]:
    index = d.year * 12 + (d.month - 1) + months
    return index // 12, index % 12 + 1


def _monday(d: date) -> date:
    return d - timedelta(days=d.weekday())


def _resolve(kind: str, match: re.Match[str], anchor: date) -> str | None:
    if kind == "yesterday":
        return _day(anchor - timedelta(days=1))
    if kind == "today":
        return _day(anchor)
    if kind == "tomorrow":
        return _day(anchor + timedelta(days=1))
    if kind == "day_before_yesterday":
        return _day(anchor - timedelta(days=2))
    if kind == "day_after_tomorrow":
        return _day(anchor + timedelta(days=2))
    if kind in ("ago", "in"):
        count = _NUMBERS.get(match["count"].lower()) or int(match["count"])
        sign = -1 if kind == "ago" else 1
        unit = match["unit"].lower()
        if unit == "day":
            return _day(anchor + timedelta(days=sign * count))
        if unit == "week":
            return "the week of " + _day(_monday(anchor + timedelta(weeks=sign * count)))
        if unit == "month":
            return _month(*_shift_month(anchor, sign * count))
        return str(anchor.year + sign * count)
    if kind == "relative_period":
        which, period = match["which"].lower(), match["period"].lower()
        step = {"last": -1, "past": -1, "next": 1, "coming": 1}.get(which, 0)
        if period == "week":
            return "the week of " + _day(_monday(anchor) + timedelta(weeks=step))
        if period == "weekend":
            saturday = _monday(anchor) + timedelta(days=5, weeks=step)
            return "the weekend of " + _day(saturday)
        if period == "month":
            return _month(*_shift_month(anchor, step))
        return str(anchor.year + step)
    weekday = WEEKDAYS.index(match["weekday"].lower())
    which = match.groupdict().get("which")
    which = which.lower() if which else None
    if which in ("next", "coming"):
        ahead = (weekday - anchor.weekday()) % 7 or 7
        return _day(anchor + timedelta(days=ahead))
    if which == "this":
        return _day(_monday(anchor) + timedelta(days=weekday))
    # "last Friday", "past Friday", or a bare "on Friday": the most recent one before the day
    # it was said (conversations recount far more than they plan).
    back = (anchor.weekday() - weekday) % 7 or 7
    return _day(anchor - timedelta(days=back))


def resolve(text: str, anchor: datetime | date) -> list[str]:
    """Notes "<expression> = <absolute time>" for each relative expression, in text order.

    Overlapping matches keep the first rule's (the longer, more specific expression), and an
    expression that repeats is noted once.
    """
    day = anchor.date() if isinstance(anchor, datetime) else anchor
    found: list[tuple[int, int, str]] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(start < e and s < end for s, e in taken):
                continue
            resolved = _resolve(kind, match, day)
            if resolved is None:
                continue
            taken.append((start, end))
            phrase = " ".join(match.group(0).lower().split())
            found.append((start, end, f"{phrase} = {resolved}"))
    notes: list[str] = []
    for _s, _e, note in sorted(found):
        if note not in notes:
            notes.append(note)
    return notes
