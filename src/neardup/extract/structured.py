"""The article as the page declares it in structured data, for pages whose visible HTML has none.

Pages of the 2020s often carry their article twice: as HTML, and as data -- the JSON-LD
``articleBody`` a publisher gives search engines, or the JSON state a JavaScript framework
renders the page from (Next.js's ``__NEXT_DATA__``, Nuxt's ``__NUXT_DATA__``, ``window.__INITIAL_STATE__``
and the like).  A page saved before its scripts ran may hold the article *only* as data: the
``<body>`` is an empty shell, or a teaser with a "subscribe to read" box.  :func:`declared_body`
reads the article from the data (Nuxt 2's payload, a JavaScript object literal returned by a function
rather than JSON, is read with its keys quoted: :func:`_assigned_literal`), and :func:`.extractor.extract` uses it when the blocks kept from
the visible HTML hold less than :data:`FALLBACK_SHARE` of its words (structured data never
replaces a visible article: it is often truncated, and sites put other stories' bodies in it).

The body of a JSON state blob is found without knowing the framework's schema: every string of
the parsed JSON that reads like prose (:data:`MIN_WORDS`+ words; an HTML string is reduced to
its text first) is grouped by its key path with list positions left out (``props.pageProps.
article.body[*].text``), and the group with the most words is the article, its strings in
document order being its paragraphs.  A story's paragraphs share one path; a related-stories
list shares one too, but its teasers are short, and the article outweighs it -- unless the feed is long
and the article short, so a path through a key naming summaries or other stories (:data:`SUMMARY_KEYS`)
is taken only when no other path holds an article's words.
"""

from __future__ import annotations

import html as html_lib
import json
import re
from collections.abc import Iterator

from .held import held_at

MIN_WORDS = 8
"""A JSON string of fewer words is not a paragraph (labels, names, slugs, dates)."""
MIN_BODY_WORDS = 50
"""Structured data with fewer words in its body is no article."""
SUMMARY_KEYS = frozenset(
    "summary description excerpt teaser teasers dek standfirst subtitle subheadline abstract snippet blurb "
    "related recommended recommendations feed teaserfeed latest popular trending mostread".split())
"""Keys (case ignored) that name a story's summary or a list of other stories: a key path through one is
the body only when no other path holds :data:`MIN_BODY_WORDS`+ words (a feed of 15 teasers outweighs a
short article on the page's state, :func:`state_body`)."""
FALLBACK_SHARE = 0.3
"""The declared body replaces the extraction when the extraction holds less than this share of
the declared body's words."""

_JSON_LD = re.compile(r"""<script[^>]*type\s*=\s*["']?application/ld\+json["']?[^>]*>(.*?)</script>""", re.I | re.S)
_STATE = re.compile(
    r"""<script[^>]*(?:id\s*=\s*["']?(?:__NEXT_DATA__|__NUXT_DATA__|__APOLLO_STATE__|__PRELOADED_STATE__)["']?"""
    r"""|type\s*=\s*["']?application/json["']?)[^>]*>(.*?)</script>""",
    re.I | re.S,
)
_ASSIGNED = re.compile(
    r"""window\.(?:__INITIAL_STATE__|__PRELOADED_STATE__|__APOLLO_STATE__|__NUXT__|__DATA__|__STATE__)\s*=\s*""", re.I)
ASSIGNED_AT = "window."
"""Every match of :data:`_ASSIGNED` starts with this (case ignored): the pattern is tried only where
it is (:func:`_assignments`)."""
_TAG = re.compile(r"<[^>]+>")
_BREAK = re.compile(r"</(?:p|div|h[1-6]|li|blockquote)\s*>|<br\s*/?>", re.I)
_WORD = re.compile(r"\w+")
_MARKERS = ("articleBody", "__NEXT_DATA__", "__NUXT_DATA__", "__APOLLO_STATE__", "__PRELOADED_STATE__",
            "__INITIAL_STATE__", "__NUXT__", "__DATA__", "__STATE__", "application/json")


def _words(text: str) -> int:
    return len(_WORD.findall(text))


def _paragraphs(value: str) -> list[str]:
    """A JSON string as paragraphs: HTML reduced to text, split at block ends and line breaks."""
    if "<" in value and ">" in value:
        value = _TAG.sub(" ", _BREAK.sub("\n", value))
    value = html_lib.unescape(value)
    return [" ".join(line.split()) for line in value.split("\n") if line.strip()]


def _strings(node, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], str]]:
    """Every string of a parsed JSON value with its key path (list positions left out)."""
    if isinstance(node, str):
        yield path, node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from _strings(value, (*path, str(key)))
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value, path)


def _article_bodies(node) -> Iterator[str]:
    """The ``articleBody`` strings of a parsed JSON-LD value."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "articleBody" and isinstance(value, str):
                yield value
            else:
                yield from _article_bodies(value)
    elif isinstance(node, list):
        for value in node:
            yield from _article_bodies(value)


def _loads(text: str):
    try:
        return json.loads(text)
    except ValueError:
        return None


def _assignments(html: str) -> list[int]:
    """Where the values of the page's state assignments (:data:`_ASSIGNED`) start, in page order.  The
    pattern is tried only where :data:`ASSIGNED_AT` is (:mod:`.held`): searched for over a whole page
    under IGNORECASE it is tried at every character, slow on the largest pages."""
    found = held_at(html, (ASSIGNED_AT,))
    if found is None:
        return [m.end() for m in _ASSIGNED.finditer(html)]
    return [m.end() for m in (_ASSIGNED.match(html, at) for at in found) if m]


def _assigned_json(html: str, start: int):
    """The JSON value assigned at ``html[start:]`` (``window.X = {...};``), or None."""
    try:
        value, _ = json.JSONDecoder().raw_decode(html, start)
    except ValueError:
        return None
    return value


_IIFE = re.compile(r"\(\s*function\s*\([\w$,\s]*\)\s*\{\s*return\s*(?=\{)")
"""Nuxt 2's payload: ``window.__NUXT__=(function(a,b,...){return {...}}(...))``, a JavaScript object
literal whose repeated values are the function's parameters."""
_JS_TOKENS = re.compile(
    r"""("(?:[^"\\]|\\.)*")|(?<=[{,])(\s*)([A-Za-z_$][\w$]*)(?=\s*:)|(?<=[:\[,])(\s*)(void\s+0|[A-Za-z_$][\w$]*)(?=\s*[,}\]])""")
"""A string (kept as it is), an unquoted key, or a bare name as a value (a parameter, ``void 0``)."""


def _js_token(m: re.Match[str]) -> str:
    if m.group(1) is not None:
        return m.group(1)
    if m.group(3) is not None:
        return f'{m.group(2)}"{m.group(3)}"'
    name = m.group(5)
    return m.group(4) + (name if name in ("true", "false", "null") else "null")


def _assigned_literal(html: str, start: int):
    """The object literal a Nuxt 2 payload returns (:data:`_IIFE`) at ``html[start:]``, read as JSON: keys
    quoted, and the parameters, whose values are the call's arguments, read as null (they hold the
    values repeated in the payload, short strings and flags, not an article's paragraphs); None when
    it is no such literal or does not parse."""
    m = _IIFE.match(html, start)
    if not m:
        return None
    end = html.find("</script", m.end())
    text = _JS_TOKENS.sub(_js_token, html[m.end(): end if end >= 0 else len(html)])
    try:
        value, _ = json.JSONDecoder().raw_decode(text)
    except ValueError:
        return None
    return value


def state_body(data) -> list[str]:
    """The article paragraphs of a parsed JSON state blob: the strings of the key path whose
    prose strings hold the most words (see the module docstring); [] when none."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for path, value in _strings(data):
        if _words(value) >= MIN_WORDS:
            paras = [p for p in _paragraphs(value) if _words(p) >= 1]
            if paras:
                groups.setdefault(path, []).extend(paras)
    if not groups:
        return []
    weight = {path: sum(_words(p) for p in paras) for path, paras in groups.items()}
    bodies = [path for path in groups if weight[path] >= MIN_BODY_WORDS and not SUMMARY_KEYS & {k.lower() for k in path}]
    best = groups[max(bodies or groups, key=weight.__getitem__)]
    seen: set[str] = set()
    out = []
    for p in best:  # frameworks repeat a string (a summary beside the body, a cache beside the props)
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out


def declared_body(html: str) -> list[str]:
    """The article paragraphs the page declares in structured data: its JSON-LD ``articleBody``
    (the longest), else the body of its JSON state blobs (:func:`state_body`); [] when it
    declares none of :data:`MIN_BODY_WORDS`+ words."""
    if not any(marker in html for marker in _MARKERS):
        return []
    best: list[str] = []
    if "articleBody" in html:
        for m in _JSON_LD.finditer(html):
            data = _loads(m.group(1).strip())
            for body in _article_bodies(data) if data is not None else ():
                paras = _paragraphs(body)
                if sum(map(_words, paras)) > sum(map(_words, best)):
                    best = paras
    if sum(map(_words, best)) >= MIN_BODY_WORDS:
        return best
    blobs = [_loads(m.group(1).strip()) for m in _STATE.finditer(html)]
    blobs += [_assigned_json(html, start) or _assigned_literal(html, start) for start in _assignments(html)]
    for data in blobs:
        if data is None:
            continue
        paras = state_body(data)
        if sum(map(_words, paras)) > sum(map(_words, best)):
            best = paras
    return best if sum(map(_words, best)) >= MIN_BODY_WORDS else []
