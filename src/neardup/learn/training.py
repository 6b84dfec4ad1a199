"""Training ANDD's k-gram weights from labeled clusters: objectives, :func:`fit` (pair sampling: :mod:`.pairs`).

Two objectives, each with the weight form it works with (:data:`FORM_OF`):

``preference`` (the paper's; Yih 2009)
    clipped linear weights ``max(0, w . phi)``.  Sample ``n_pairs`` pair-pairs (80,000
    as in the paper), each a near-duplicate pair (same cluster) and a non-duplicate pair
    (different clusters) drawn uniformly; with ``delta = sim(pos) - sim(neg)`` minimize
    ``mean log(1 + exp(-gamma delta)) + mu (|w|^2 - 1)^2`` from TF-IDF (``gamma`` = 10).
    Both similarities are unchanged when ``w`` is scaled, so the second term only pins
    ``|w|`` near 1.
``f1`` (neardup's default)
    log-linear weights ``exp(w . z)`` of the standardized features ``z`` (so ``w = 0`` is
    binary weights), and the loss ``1 - F1`` smoothed: a pair counts as predicted
    positive with ``sigmoid(gamma (sim - t))`` (``gamma`` = 30), the threshold ``t``
    learned along, plus ``l2 |w|^2`` (0.1), which pulls toward binary weights.  Over
    every pair of the training documents, or ``n_pairs`` near-duplicate and as many
    non-duplicate pairs drawn uniformly and weighted back to their totals when there
    are more than ``2 n_pairs`` pairs.  Starts from binary weights.

Why two: the paper's loss is dominated by easy negatives (uniform pairs of unrelated
documents), while Max F1 is decided by the few pairs near the threshold.  On the GoldSet
split halves (``bench/bench_andd_learning.py``, ``bench/bench_goldset.py --andd-table``),
``preference`` ends below binary weights everywhere; ``f1`` ends above them for cosine (k = 1
and 3, raw and signatures) and ties or trails them slightly for weighted Jaccard.  ``l2`` =
0.1 was chosen on split seeds 10-14 and reported on seeds 0-4.

``sim`` is either ``cosine`` of the weighted vectors or ``jaccard``, the weighted
(generalized) Jaccard ``sum min / sum max`` -- the paper's "extended Jaccard" read the
way its signatures can estimate it: Ioffe's consistent weighted sampling
(:mod:`neardup.sketch.icws`) collides with exactly this probability from real weights,
with no binarization (which the paper needed for plain min-hash).  Minimized by SciPy's
L-BFGS-B with the analytic (sub)gradient :func:`loss_and_grad`.  Deterministic given
``seed``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
from numba import njit

from ..errors import UserError
from ..evaluate.measures import max_f1
from ..features.sets import next_shared
from .andd import (
    FEATURES, FORM_OF, SIMILARITIES, ANDDModel, GramStats, QueryFrequencies, feature_matrix, featurize, fixed_weights,
    standardize, weigh,
)
from .pairs import f1_pairs, sample_pair_pairs, unique_pairs

#: Training objectives (the key) and the weight form each learns.
OBJECTIVES = tuple(FORM_OF)
#: ``preference``: pair-pairs sampled, the paper's 80,000.  ``f1``: near-duplicate (and as
#: many non-duplicate) pairs sampled when the documents have more than twice as many pairs.
N_PAIRS = {"preference": 80000, "f1": 500000}
#: Sharpness of the objective's sigmoid (the paper's 10 for preference).
GAMMA = {"preference": 10.0, "f1": 30.0}
#: ``f1``'s pull toward binary weights.
L2 = 0.1
#: Features the exp form does without: a constant scales every weight alike (no similarity
#: sees it), and ``exp(a tf + b idf)`` of the features tf = log(1 + count) and idf already spans
#: TF-IDF-like weightings.
EXP_UNUSED = ("bias", "tfidf")


@njit(cache=True)
def _matches(hashes, offsets, a, b):
    """Entry index pairs of the shared k-grams of each pair, and the pair of each match."""
    total = 0
    for i in range(a.shape[0]):
        total += min(offsets[a[i] + 1] - offsets[a[i]], offsets[b[i] + 1] - offsets[b[i]])
    ip = np.empty(total, dtype=np.int64)
    iq = np.empty(total, dtype=np.int64)
    pair = np.empty(total, dtype=np.int64)
    m = 0
    for i in range(a.shape[0]):
        pe, qe = offsets[a[i] + 1], offsets[b[i] + 1]
        p, q = next_shared(hashes, offsets[a[i]], pe, offsets[b[i]], qe)
        while p < pe:
            ip[m], iq[m], pair[m] = p, q, i
            m += 1
            p, q = next_shared(hashes, p + 1, pe, q + 1, qe)
    return ip[:m], iq[:m], pair[:m]


@dataclass
class TrainingProblem:
    """Everything an objective needs, precomputed once: features, pairs and their shared k-grams."""

    x: np.ndarray  # (entries, features); standardized for the exp form
    doc: np.ndarray  # document of each entry
    n_docs: int
    a: np.ndarray  # unique pairs (a < b)
    b: np.ndarray
    ip: np.ndarray  # shared entries of each pair
    iq: np.ndarray
    match_pair: np.ndarray
    pos: np.ndarray  # preference: index into the unique pairs of each pair-pair's near-duplicate pair
    neg: np.ndarray  # ... and of its non-duplicate pair
    labels: np.ndarray  # f1: whether each unique pair is a near-duplicate (0 / 1)
    pair_weight: np.ndarray  # f1: how many pairs of the collection each unique pair stands for
    similarity: str = "cosine"
    objective: str = "f1"
    gamma: float = 30.0
    mu: float = 1.0  # preference: pin of |w| near 1
    l2: float = 0.1  # f1: pull toward binary weights (w = 0)

    @property
    def form(self) -> str:
        return FORM_OF[self.objective]


@njit(cache=True)
def _shared_sums(ip, iq, pair, v, n_pairs, jaccard):
    """Per pair, the sum over its shared k-grams of ``min(v_p, v_q)`` (jaccard) or ``v_p v_q``."""
    out = np.zeros(n_pairs)
    for m in range(ip.shape[0]):
        x, y = v[ip[m]], v[iq[m]]
        out[pair[m]] += min(x, y) if jaccard else x * y
    return out


@njit(cache=True)
def _shared_grads(ip, iq, pair, v, coef, n_entries, jaccard):
    """``coef[pair]`` times the derivative of each shared term of :func:`_shared_sums`, per entry.

    For ``min`` the smaller side takes it (a subgradient: at ties each side takes half).
    """
    g = np.zeros(n_entries)
    for m in range(ip.shape[0]):
        c, x, y = coef[pair[m]], v[ip[m]], v[iq[m]]
        if jaccard:
            side = 1.0 if x < y else (0.5 if x == y else 0.0)
            g[ip[m]] += c * side
            g[iq[m]] += c * (1.0 - side)
        else:
            g[ip[m]] += c * y
            g[iq[m]] += c * x
    return g


#: ``(similarity of each unique pair, backward)``; ``backward(c)`` maps ``dL/dsim`` per pair
#: to ``dL/dv`` per entry (before the clip).
Forward = Callable[[TrainingProblem, np.ndarray], tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]]


def _cosine(prob: TrainingProblem, v: np.ndarray):
    sq = np.bincount(prob.doc, weights=v * v, minlength=prob.n_docs)
    dot = _shared_sums(prob.ip, prob.iq, prob.match_pair, v, prob.a.shape[0], False)
    den = np.sqrt(sq[prob.a] * sq[prob.b])
    ok = den > 0
    cos = np.divide(dot, den, out=np.zeros_like(dot), where=ok)

    def backward(c: np.ndarray) -> np.ndarray:
        # d cos / d v_p = v_q / (|p||q|) on shared entries  -  cos v_p / |p|^2 on all of p's entries
        cm = np.divide(c, den, out=np.zeros_like(c), where=ok)
        g = _shared_grads(prob.ip, prob.iq, prob.match_pair, v, cm, v.shape[0], False)
        cc = np.where(ok, -c * cos, 0.0)
        per_doc = np.bincount(prob.a, weights=np.divide(cc, sq[prob.a], out=np.zeros_like(cc), where=ok), minlength=prob.n_docs)
        per_doc += np.bincount(prob.b, weights=np.divide(cc, sq[prob.b], out=np.zeros_like(cc), where=ok), minlength=prob.n_docs)
        return g + per_doc[prob.doc] * v

    return cos, backward


def _jaccard(prob: TrainingProblem, v: np.ndarray):
    total = np.bincount(prob.doc, weights=v, minlength=prob.n_docs)  # sum of each document's weights
    lo = _shared_sums(prob.ip, prob.iq, prob.match_pair, v, prob.a.shape[0], True)  # sum min
    hi = total[prob.a] + total[prob.b] - lo  # sum max
    ok = hi > 0
    jac = np.divide(lo, hi, out=np.zeros_like(lo), where=ok)

    def backward(c: np.ndarray) -> np.ndarray:
        # J = lo / (T_p + T_q - lo): dJ/dT_p = -lo / hi^2 for every entry of p, and
        # dJ/dlo = (T_p + T_q) / hi^2 on the smaller side of each shared k-gram
        ch = np.divide(c, hi * hi, out=np.zeros_like(c), where=ok)
        per_doc = np.bincount(prob.a, weights=-ch * lo, minlength=prob.n_docs)
        per_doc += np.bincount(prob.b, weights=-ch * lo, minlength=prob.n_docs)
        g = _shared_grads(prob.ip, prob.iq, prob.match_pair, v, ch * (total[prob.a] + total[prob.b]), v.shape[0], True)
        return g + per_doc[prob.doc]

    return jac, backward


_FORWARD: dict[str, Forward] = {"cosine": _cosine, "jaccard": _jaccard}


def forward(prob: TrainingProblem, v: np.ndarray) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    """The similarity of each pair of ``prob`` under entry weights ``v``, and the map of
    ``dL/dsim`` per pair to ``dL/dv`` per entry (before the clip) -- for any pair loss."""
    return _FORWARD[prob.similarity](prob, v)


def pair_similarities(prob: TrainingProblem, w: np.ndarray) -> np.ndarray:
    """The similarity (``prob.similarity``) of each unique pair under weights ``w`` (for
    ``f1``: without the threshold)."""
    return forward(prob, weigh(prob.x, w, prob.form))[0]


def _preference(sim: np.ndarray, prob: TrainingProblem, theta: np.ndarray):
    """The paper's loss, ``dL/dsim`` per pair, and ``dL/dtheta`` of its other terms."""
    n = prob.pos.shape[0]
    z = -prob.gamma * (sim[prob.pos] - sim[prob.neg])
    loss = float(np.logaddexp(0.0, z).sum()) / n
    dl_ddelta = -prob.gamma / (1.0 + np.exp(-z)) / n  # d log(1 + e^z) / d delta
    c = np.bincount(prob.pos, weights=dl_ddelta, minlength=sim.shape[0])
    c -= np.bincount(prob.neg, weights=dl_ddelta, minlength=sim.shape[0])
    norm2 = float(theta @ theta)
    return loss + prob.mu * (norm2 - 1.0) ** 2, c, prob.mu * 4.0 * (norm2 - 1.0) * theta


def _f1(sim: np.ndarray, prob: TrainingProblem, theta: np.ndarray):
    """``1 - smoothed F1`` at threshold ``theta[-1]`` plus ``l2 |w|^2``; ``dL/dsim``; ``dL/dtheta`` of the rest."""
    w, t = theta[:-1], theta[-1]
    p = 1.0 / (1.0 + np.exp(-prob.gamma * (sim - t)))
    dp = prob.gamma * p * (1.0 - p)  # dp/dsim = -dp/dt
    y, om = prob.labels, prob.pair_weight
    den = float(om @ p) + float(om @ y)
    tp = float(om @ (y * p))
    df_dp = om * (2.0 * y / den - 2.0 * tp / den**2)
    loss = 1.0 - 2.0 * tp / den + prob.l2 * float(w @ w)
    return loss, -df_dp * dp, np.r_[2.0 * prob.l2 * w, float(df_dp @ dp)]


_OBJECTIVE = {"preference": _preference, "f1": _f1}


def loss_and_grad(theta: np.ndarray, prob: TrainingProblem) -> tuple[float, np.ndarray]:
    """``prob.objective`` at ``theta`` and its (sub)gradient.

    ``theta`` is the feature weights ``w``; for ``f1`` followed by the threshold.
    """
    w = theta[:-1] if prob.objective == "f1" else theta
    v = weigh(prob.x, w, prob.form)
    sim, backward = forward(prob, v)
    loss, c, grad = _OBJECTIVE[prob.objective](sim, prob, theta)
    g_v = backward(c)
    if prob.form == "linear":
        g_v[v <= 0.0] = 0.0  # the clip's subgradient
    else:
        g_v *= v  # d exp(z . w) / d (z . w)
    grad = grad.copy()
    grad[: w.shape[0]] += prob.x.T @ g_v
    return loss, grad






def pairs_problem(
    stats: GramStats,
    x: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    objective: str = "f1",
    similarity: str = "cosine",
    **fields,
) -> TrainingProblem:
    """The problem over the document pairs ``(a[i], b[i])`` of ``stats`` with features ``x``
    (one row per entry); ``fields``: the objective's pair data and settings."""
    ip, iq, mp = _matches(stats.sets.hashes, stats.sets.offsets, a, b)
    empty = np.zeros(0)
    data = {"pos": empty.astype(np.int64), "neg": empty.astype(np.int64), "labels": empty, "pair_weight": empty}
    return TrainingProblem(
        x, stats.doc(), len(stats.sets), a, b, ip, iq, mp, **{**data, **fields},
        similarity=similarity, objective=objective,
    )


def build_problem(
    stats: GramStats,
    cluster: np.ndarray,
    n_pairs: int,
    seed: int,
    similarity: str = "cosine",
    gamma: float | None = None,
    qf: QueryFrequencies | None = None,
    objective: str = "preference",
    l2: float = L2,
    x: np.ndarray | None = None,
) -> tuple[TrainingProblem, np.ndarray | None, np.ndarray | None]:
    """The training problem of documents ``stats`` labeled with ``cluster``, and the
    standardization ``(center, scale)`` of its features (None for the linear form).

    ``x``: the entries' features, when not :func:`feature_matrix` (to try others)."""
    if similarity not in SIMILARITIES:
        raise UserError(f"similarity must be one of {', '.join(SIMILARITIES)}, got {similarity!r}")
    if objective not in OBJECTIVES:
        raise UserError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    cluster = np.asarray(cluster)
    n = len(stats.sets)
    x, center, scale = (feature_matrix(stats, qf) if x is None else x), None, None
    if FORM_OF[objective] == "exp":
        x, center, scale = standardize(x)
        x[:, [FEATURES.index(f) for f in EXP_UNUSED]] = 0.0  # so their weights stay 0
    settings = {"gamma": GAMMA[objective] if gamma is None else gamma, "l2": l2}
    if objective == "preference":
        pa, pb, na, nb = sample_pair_pairs(cluster, n_pairs, seed)
        if not pa.shape[0]:
            raise UserError("training needs at least one near-duplicate and one non-duplicate pair")
        a, b, inverse = unique_pairs(n, np.r_[pa, na], np.r_[pb, nb])
        prob = pairs_problem(stats, x, a, b, objective, similarity, pos=inverse[: pa.shape[0]],
                             neg=inverse[pa.shape[0]:], **settings)
        return prob, center, scale
    a, b, labels, weight = f1_pairs(cluster, n_pairs, seed)
    if not labels.any() or labels.all():
        raise UserError("training needs at least one near-duplicate and one non-duplicate pair")
    prob = pairs_problem(stats, x, a, b, objective, similarity, labels=labels, pair_weight=weight, **settings)
    return prob, center, scale






def fit(texts: Sequence[str], clusters: np.ndarray, k: int = 1, **options) -> ANDDModel:
    """Learn the k-gram weights from documents ``texts`` labeled with ``clusters``.

    ``clusters[i]`` is the cluster of text ``i`` (negative = a singleton); IDF is
    computed over ``texts``; ``options`` are those of :func:`fit_stats`.  Raises ValueError
    when the labels give no near-duplicate or no non-duplicate pair.
    """
    model = fit_stats(featurize(texts, k), clusters, **options)
    model.info["documents"] = len(texts)
    return model


def fit_stats(
    stats: GramStats,
    clusters: np.ndarray,
    similarity: str = "cosine",
    seed: int = 0,
    n_pairs: int | None = None,
    gamma: float | None = None,
    max_iter: int = 300,
    qf: QueryFrequencies | None = None,
    objective: str = "f1",
    l2: float = L2,
    x: np.ndarray | None = None,
) -> ANDDModel:
    """:func:`fit` of featurized documents: weights for ``similarity`` by ``objective``.

    ``n_pairs``, ``gamma``: the objective's defaults (:data:`N_PAIRS`, :data:`GAMMA`)
    when None; ``x``: other entry features than :func:`feature_matrix` (the model's
    weights then follow its columns).
    """
    n_pairs = N_PAIRS.get(objective, 0) if n_pairs is None else n_pairs
    prob, center, scale = build_problem(stats, np.asarray(clusters), n_pairs, seed, similarity, gamma, qf, objective, l2, x)
    width = prob.x.shape[1]
    if objective == "preference":
        theta0 = np.zeros(width)
        theta0[: len(FEATURES)] = fixed_weights("tfidf")
    else:  # binary weights, at their best threshold
        sim = pair_similarities(prob, np.zeros(width))
        theta0 = np.r_[np.zeros(width), max_f1(sim, prob.labels > 0, prob.pair_weight).threshold]
    from scipy.optimize import minimize  # here: importing it costs every command 0.27 s

    res = minimize(loss_and_grad, theta0, args=(prob,), jac=True, method="L-BFGS-B", options={"maxiter": max_iter})
    loss0, _ = loss_and_grad(theta0, prob)
    info = {
        "objective": objective, "seed": seed, "pairs": int(prob.a.shape[0]), "gamma": prob.gamma,
        "loss_start": float(loss0), "loss_end": float(res.fun), "iterations": int(res.nit), "converged": bool(res.success),
    }
    if objective == "preference":
        w = res.x / max(np.linalg.norm(res.x), 1e-12)
        info["pair_pairs"] = int(prob.pos.shape[0])
    else:
        w = res.x[:-1]
        # the smoothed threshold leans high (the sigmoid's tails over many non-duplicates);
        # the model keeps the exact one of best F1 on the training pairs
        best = max_f1(pair_similarities(prob, w), prob.labels > 0, prob.pair_weight).threshold
        info.update(l2=l2, smoothed_threshold=float(res.x[-1]), threshold=best)
    if qf is not None:
        info["qf"] = qf.source
    return ANDDModel(w, stats.k, similarity, info, FORM_OF[objective], center, scale)
