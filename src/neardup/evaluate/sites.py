"""Made-up vocabulary and synthetic site templates for the syndication simulator.

Every site has its own boilerplate (navigation, cookie notice, ads, "most popular",
footer, comments) shared by all its pages, as on real sites, so similarity on raw pages is
dominated by templates -- what content extraction must undo.  Scalar draws use a seeded
``random.Random``: deterministic and faster per call than numpy for single values.
"""

from __future__ import annotations

import html
import random
from dataclasses import dataclass

__all__ = ["COMMON", "MONTHS", "Site", "Words", "make_site", "render"]

_ONSETS = "b c d f g h j k l m n p r s t v w z br ch cl dr fl gr kr pl pr sh st th tr".split()
_VOWELS = "a e i o u a e i o ai ea ou".split()
_CODAS = ["", "", "", "n", "r", "s", "l", "m", "t", "nd", "rk", "st"]
_FUNCTION = "the of and to in a for on with at by from that as is was will has said its".split()
COMMON = ("also new more last first many officials year week told government company people "
           "market would could about after early most several major local national").split()
_SECTIONS = ("World Business Sport Politics Tech Science Health Culture Opinion Money Travel "
             "Weather Video Local Entertainment Education Environment Markets").split()
_PAPER = "Times Herald Post Daily Gazette News Tribune Chronicle Observer Journal Courier Ledger Wire Report".split()
MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()


def _pseudo_words(r: random.Random, n: int) -> list[str]:
    """``n`` distinct pronounceable made-up words."""
    words: dict[str, None] = {}
    while len(words) < n:
        w = "".join(r.choice(_ONSETS) + r.choice(_VOWELS) for _ in range(r.randint(1, 3)))
        words[w + r.choice(_CODAS)] = None
    return list(words)


class Words:
    """Made-up vocabulary and phrase makers for templates, names and local paragraphs.

    Scalar draws use ``random.Random`` (seeded, deterministic, much faster per call
    than numpy for single values).
    """

    def __init__(self, r: random.Random, n: int = 3000):
        self.vocab = _pseudo_words(r, n)
        self.pool = self.vocab + _FUNCTION * (n * 35 // 65 // len(_FUNCTION))  # ~35% function words

    def word(self, r: random.Random, cap: bool = False) -> str:
        w = r.choice(self.vocab)
        return w.capitalize() if cap else w

    def name(self, r: random.Random) -> str:
        return f"{r.choice(self.vocab).capitalize()} {r.choice(self.vocab).capitalize()}"

    def phrase(self, r: random.Random, lo: int, hi: int) -> str:
        return " ".join(r.choices(self.pool, k=r.randint(lo, hi)))

    def sentence(self, r: random.Random, lo: int = 6, hi: int = 16) -> str:
        s = self.phrase(r, lo, hi)
        return s[0].upper() + s[1:] + "."

    def sentences(self, r: random.Random, lo: int, hi: int) -> str:
        return " ".join(self.sentence(r) for _ in range(r.randint(lo, hi)))


# --------------------------------------------------------------------------- sites


def _links(items: list[str], href: str = "#") -> str:
    """``<li>`` links for a menu or a list of titles."""
    e = html.escape
    return "".join(f'<li><a href="{e(href.replace("*", x.lower()))}">{e(x)}</a></li>' for x in items)


@dataclass
class Site:
    """One site's template: the boilerplate shared by all its pages.

    ``top`` (cookie notice, header, navigation) and ``bottom`` ("most popular" list,
    footer) are rendered once; pages add their own ads, related links and comments.
    """

    key: str
    name: str
    domain: str
    menu: list[str]
    tagline: str
    cookie: str
    ads: list[str]  # escaped ad blocks
    popular: list[str]
    footer_text: str
    staff: list[str]
    p_comments: float
    prefix: str  # CSS class prefix, so markup differs between sites
    top: str = ""
    bottom: str = ""


def make_site(i: int, rng: random.Random, words: Words, titles: list[str]) -> Site:
    e = html.escape
    paper = f"{words.word(rng, True)} {rng.choice(_PAPER)}"
    secs = rng.sample(_SECTIONS, rng.randint(4, 7))
    px = words.word(rng)[:4]
    s = Site(
        key=f"site{i:03d}",
        name=f"The {paper}",
        domain=f"www.{paper.replace(' ', '').lower()}.com",
        menu=secs + [words.word(rng, True) for _ in range(rng.randint(2, 5))],
        tagline=words.sentence(rng, 4, 9),
        cookie=f"We use cookies to {words.phrase(rng, 4, 8)}. {words.sentence(rng, 5, 10)} Accept all cookies?",
        ads=[f'<div class="{px}-ad"><span>Advertisement</span><p>{e(words.name(rng))}: {e(words.sentence(rng, 5, 12))}</p></div>'
             for _ in range(rng.randint(3, 6))],
        popular=rng.choices(titles, k=rng.randint(4, 7)),
        footer_text=f"Copyright The {paper}. {words.sentences(rng, 1, 3)}",
        staff=[words.name(rng) for _ in range(rng.randint(3, 8))],
        p_comments=rng.choice([0.0, 0.3, 0.8]),
        prefix=px,
    )
    footer_links = ["About us", "Contact", "Privacy", "Terms"]
    footer_links += [words.word(rng, True) for _ in range(rng.randint(2, 5))]
    s.top = (
        f'<link rel="stylesheet" href="/static/{px}.css"></head><body class="{px}-page">\n'
        f'<div class="{px}-cookie" role="dialog"><p>{e(s.cookie)}</p><button>OK</button></div>\n'
        f'<header class="{px}-header"><a class="{px}-logo" href="/">{e(s.name)}</a><p class="{px}-tagline">{e(s.tagline)}</p>\n'
        f'<nav><ul>{_links(s.menu, "/*/")}</ul></nav></header>\n'
    )
    s.bottom = (
        f"<h2>Most popular</h2><ol>{_links(s.popular)}</ol></aside>\n"
        f'</main><footer class="{px}-footer"><ul>{_links(footer_links)}</ul>\n'
        f"<p>{e(s.footer_text)}</p></footer></body></html>\n"
    )
    return s


def render(site: Site, text: str, byline: str, caption: str, when: str, topic: str | None,
            rng: random.Random, words: Words, titles: list[str]) -> str:
    """The full page: site boilerplate around the article, plus per-page noise."""
    e = html.escape
    px = site.prefix
    headline, *paras = text.split("\n\n")
    related = rng.choices(titles, k=rng.randint(3, 6))
    out = [
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{e(headline)} | {e(site.name)}</title>\n',
        site.top,
        rng.choice(site.ads),
        f'\n<main><div class="{px}-crumbs"><a href="/">Home</a> &gt; <a href="/news/">{e((topic or "news").title())}</a></div>\n',
        f"<article><h1>{e(headline)}</h1>\n",
        f'<div class="{px}-byline">{e(byline)} <time>{when}</time></div>\n',
        f'<figure><img src="/img/{rng.getrandbits(32)}.jpg" alt=""><figcaption>{e(caption)}</figcaption></figure>\n',
        f'<div class="{px}-body">\n',
    ]
    for p in paras:
        out.append(f"<p>{e(p)}</p>\n")
        if rng.random() < 0.15:
            out.append(rng.choice(site.ads) + "\n")
    out.append('</div><div class="share">Share this article: Facebook Twitter Email</div></article>\n')
    out.append(f"<aside><h2>Related stories</h2><ul>{_links(related)}</ul>\n")
    if rng.random() < site.p_comments:
        n = rng.randint(1, 6)
        out.append(f'<section class="{px}-comments"><h2>Comments ({n})</h2>\n')
        for _ in range(n):
            out.append(f'<div class="comment"><b>{e(words.name(rng))}</b><p>{e(words.sentences(rng, 1, 3))}</p></div>\n')
        out.append("</section>\n")
    out.append(site.bottom)
    return "".join(out)
