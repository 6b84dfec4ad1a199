"""Stopwords: the English function words that are not content words.

One list for every method that skips them: SpotSigs' chains (what is *not* a content
word after an antecedent), CoDet's containment words, PDC's sentence signatures.  (The
extraction model's block features have a shorter list of their own, in
:mod:`neardup.extract.features`: it is part of what the shipped model was trained with.)
"""

from __future__ import annotations

#: English function words: what is *not* a content word.
ENGLISH_STOPWORDS = frozenset(
    """
    a about above after again against all also am among an and another any are around as at
    be because been before being below between both but by
    can cannot could did do does doing done down during each either else ever every
    few for from further had has have having he her here hers herself him himself his how however
    i if in into is it its itself just least less let may me might more most much must my myself
    neither no nor not now of off on once only onto or other others otherwise our ours ourselves
    out over own per same shall she should since so some such than that the their theirs them
    themselves then there therefore these they this those though through thus to too toward
    towards under until unto up upon us very via was we were what whatever when whenever where
    whereas wherever whether which while who whoever whom whose why will with within without
    would yet you your yours yourself yourselves
    s t d ll m re ve don doesn didn isn wasn aren weren won wouldn couldn shouldn hasn haven hadn
    """.split()
)
