"""The knobs of the syndication simulator (:mod:`neardup.evaluate.synth`): :class:`SynthConfig`.

Apart from the simulator (whose module is long enough) so the knobs, their defaults and their
ranges read in one place; ``neardup synth`` makes an option of each, so a knob out of its range
is refused when the config is made, naming it, for the command line and the API alike.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from datetime import datetime

from ..errors import UserError

#: The least value of each knob that is a count, a size or a time (none has a most); every other
#: number is a probability or a share, in [0, 1].
AT_LEAST = {"n_sites": 1, "mean_cluster_size": 1, "cluster_size_sigma": 0, "min_source_words": 0,
            "min_partial_chars": 1, "story_gap_minutes": 0, "mean_delay_hours": 0, "max_delay_hours": 0,
            "recent_window": 0}


@dataclass(frozen=True)
class SynthConfig:
    """Knobs of the simulation (defaults give a mixed, realistic corpus).

    Story popularity: the number of documents per story is ``1 + multinomial`` share of
    the documents beyond one per story, with log-normal weights (``cluster_size_sigma``):
    many singletons, a few large clusters, mean ``mean_cluster_size``.  With ``n_docs``
    larger than ``len(stories) * mean_cluster_size`` all stories are used and clusters
    grow (mean ``n_docs / len(stories)``).
    """

    n_sites: int = field(default=40, metadata={"help": "synthetic sites, with Zipf-like popularity"})
    mean_cluster_size: float = field(default=3.0, metadata={"help": "documents per story, on average"})
    cluster_size_sigma: float = field(default=1.0, metadata={"help": "spread of story popularity (log-normal sigma)"})
    p_trim: float = field(default=0.15, metadata={"help": "each further document: a trimmed copy of a version"})
    p_split: float = field(default=0.05, metadata={"help": "each further document: a version split over two pages"})
    p_partial: float = field(default=0.10, metadata={"help": "a full version receives a passage of another story"})
    p_same_topic: float = field(default=0.5, metadata={"help": "next story drawn from the previous story's topic"})
    edit_rate: float = field(default=0.02, metadata={"help": "share of words replaced / deleted / inserted per rewrite"})
    p_rebreak: float = field(default=0.5, metadata={"help": "a rewrite re-breaks paragraphs (1-3 splits or joins)"})
    p_reorder: float = field(default=0.1, metadata={"help": "a rewrite swaps two adjacent paragraphs"})
    p_local_paragraph: float = field(default=0.2, metadata={"help": "a rewrite gets a made-up local paragraph"})
    p_new_headline: float = field(default=0.7, metadata={"help": "a rewrite gets a changed headline"})
    min_source_words: int = field(default=80, metadata={"help": "shorter sources are not used"})
    max_digit_share: float = field(default=0.15, metadata={"help": "nor tables (Reuters earnings): share of words with digits"})
    min_partial_chars: int = field(default=80, metadata={"help": "shortest copied passage"})
    story_gap_minutes: float = field(default=10.0, metadata={"help": "mean time between stories"})
    mean_delay_hours: float = field(default=6.0, metadata={"help": "mean delay of a republication after the story"})
    max_delay_hours: float = field(default=48.0, metadata={"help": "republications are all within this window"})
    start: str = field(default="2024-01-01T00:00:00Z", metadata={"help": "time of the first story"})
    recent_window: int = field(default=256, metadata={"help": "documents of past stories that can be quoted"})
    p_shared_quote: float = field(default=0.0, metadata={"help": "a story's original quotes one sentence of the previous story's"})
    p_site_about: float = field(default=0.0, metadata={"help": "a page ends with its site's \"About us\" paragraph"})
    lang: str = field(default="auto", metadata={"help": "the sources' language (en, tr, zh, ja): edits, headlines; auto: detected"})

    def __post_init__(self) -> None:
        """Refuse a knob out of its range (:data:`AT_LEAST`, else [0, 1]) or of the wrong type, naming it."""
        for f in fields(self):
            value, kind = getattr(self, f.name), type(f.default)
            if kind is str:
                continue
            what = f"{f.name} (--{f.name.replace('_', '-')})"
            if isinstance(value, bool) or not isinstance(value, (int, float) if kind is float else int):
                raise UserError(f"synth: {what} must be {'a number' if kind is float else 'a whole number'}, "
                                f"got {value!r}")
            low = AT_LEAST.get(f.name)
            if low is None and not 0 <= value <= 1:
                raise UserError(f"synth: {what} is a probability or share, in [0, 1]; got {value}")
            if low is not None and not (value >= low and math.isfinite(value)):
                raise UserError(f"synth: {what} must be a finite number of at least {low}, got {value}")
        if self.p_trim + self.p_split > 1:
            raise UserError(f"synth: p_trim + p_split (--p-trim, --p-split) are shares of one draw, at most 1 "
                            f"together; got {self.p_trim} + {self.p_split}")
        start_seconds(self.start)


def start_seconds(start: str) -> int:
    """``start`` (ISO 8601, ``Z`` for UTC) in seconds since the epoch."""
    try:
        return int(datetime.fromisoformat(start.replace("Z", "+00:00")).timestamp())
    except (AttributeError, ValueError):
        raise UserError(f"synth: start must be an ISO 8601 time like 2024-01-01T00:00:00Z, got {start!r}") from None


def check_docs(n_docs: int | None) -> None:
    """Refuse a corpus of fewer than one document (``None``: every usable story once)."""
    if n_docs is not None and not n_docs >= 1:
        raise UserError(f"synth: n_docs (--docs) must be at least 1, got {n_docs}")
