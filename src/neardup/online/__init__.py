"""Online near-duplicate detection: a persistent index that checks and adds documents as they arrive.

:class:`Index` (``neardup index ...``) stores each document's sketch row and its
candidate keys in an embedded database (:mod:`.storage`); ``neardup serve``
(:mod:`.server`, extra ``serve``) answers over HTTP.  Which methods can be online:
:mod:`.schemes`.
"""

from .index import Checked, Index
from .matches import Match

__all__ = ["Checked", "Index", "Match"]
