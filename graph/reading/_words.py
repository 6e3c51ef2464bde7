"""The words the reader skips: function words, chat fillers, the calendar (names and topics)."""

from __future__ import annotations

import re


def words(text: str) -> frozenset[str]:
    """A word list written as one string, a word per space."""
    return frozenset(text.split())


# English function words, pronouns, auxiliaries and the fillers of chat ("hey", "thanks",
# "awesome"): a sentence opens with them capitalised, and they never name or describe a topic.
STOPWORDS = words(
    """
    a about above after again against ago all almost also although always am among an and
    another any anybody anyone anything anyway anyways are around as at away awesome aww back
    be became because become been before being below between both but by can
    cannot could couldn did didn do does doesn doing don done down during each either else
    enough especially even ever every everybody everyone everything exactly few first for
    from further get gets getting give go goes going gonna got gotta had hadn has
    hasn have haven having he hello her here hers herself hey hi him himself his how however
    i if im in indeed instead into is isn it its itself just kind last later least less let
    lets like likely little lol lot lots made make makes making many may maybe me mean means
    might mine more most much must my myself need needs never next no nobody none nor
    not nothing now of off oh ok okay on once one only or other others otherwise our ours
    ourselves out over own particularly perhaps please pretty quite rather really right said
    same say says see seem seems she should shouldn since so some somebody someone something
    sometimes somewhat soon still such sure take tell than thank thanks that the their theirs
    them themselves then there these they thing things think this those though through thus
    to today together tomorrow too totally toward towards um under until up upon us use used
    using usually very via want wants was wasn way we well went were weren what whatever when
    whenever where wherever whether which while who whoever whole whom whose why will with
    within without won wonderful wow would wouldn yeah yes yesterday yet you your yours
    yourself yourselves cool amazing glad happy sorry congrats congratulations wish hope
    know knew feel felt thought looks look looking sounds sound yup nope absolutely definitely
    certainly probably honestly literally basically seriously anyhow meanwhile besides
    monday tuesday wednesday thursday friday saturday sunday january february march april
    june july august september october november december week weeks month months year years
    day days morning evening night tonight weekend time times
    """
)

# Adjectives that open names ("New York", "Great Wall") but say nothing as a topic's word.
VAGUE = words("best better good great new old nice big small bad different real")

# Verbs that open a request or a sentence of chat, capitalised there only: "Fix the parser",
# "Started a new job". Not exhaustive: a word left out costs a name node of low specificity.
OPENERS = words(
    """
    add added adding ask asked build call can check create debug describe did explain find fix
    follow generate guess help implement improve keep learn list loved move moved need plan
    provide put read recommend remember remind run saw set show start started stop suggest
    summarize summarise talk tried try update walk was were write wrote went got had made met
    bought visited finished joined took
    """
)

# A word as the reader sees it: letters and digits, with inner apostrophes, hyphens and dots
# kept ("O'Brien", "state-of-the-art", "Node.js" is an identifier and masked before).
WORD = re.compile(r"[^\W_](?:[\w'\u2019-]*[^\W_])?")
# Where a sentence or clause ends: a new sentence may open with any capitalised word.
SENTENCE_END = re.compile(r"[.!?;:\n]+[\s\"')\]]*|^\s*")
