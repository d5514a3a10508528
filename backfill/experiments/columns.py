"""The measures a result row can hold beyond the standard ones: fairness, shares, groups, planning.

Every column of a sweep's or ``backfill simulate``'s rows is named here or in
:data:`~backfill.experiments.results.METRIC_COLUMNS`; :data:`MEASURE_COLUMNS` is the whole
vocabulary, the choices of both commands' ``--metric``. The standard columns are always computed;
the ones named here (:data:`EXTRA_COLUMNS`) only when asked for, since some cost far more than the
simulation: the fair-start unfairness forks the simulation once per job
(:func:`~backfill.experiments.fair_start.fair_start_times`). :func:`extra_measures` computes a
chosen set of them for one schedule.

The groups (:data:`MEASURE_GROUPS`):

* ``fair_start``: ``strict_unfairness`` and ``relaxed_unfairness``, the mean over jobs of
  max(0, start - fair start) with Sabin and Sadayappan's strict or relaxed fair start times under the
  same scheduler (:func:`~backfill.measures.fairness.unfairness`), in seconds;
* ``fair_share``: ``fair_share_unfairness`` and ``weighted_fair_share_unfairness``, the mean
  shortfall of the resources each job received against its fair share
  (:func:`~backfill.measures.fairshare.fair_share_unfairness`), in processor-seconds;
* ``category``: ``<c>_<key>`` for each job category ``c`` (``sn``, ``sw``, ``ln``, ``lw``) and each
  :data:`~backfill.measures.groups.GROUP_KEYS` key (:func:`~backfill.measures.groups.per_category`);
* ``user``: ``users`` (users with a completed job), ``user_mean_wait`` and ``user_mean_bsld`` (the
  mean over users of each user's mean), ``worst_user_mean_wait``, ``worst_user_mean_bsld`` and
  ``worst_user_max_wait`` (the worst user's; :func:`~backfill.measures.groups.per_user`), and
  ``under_shared`` and ``over_shared``, the fractions of users more than 50 processor-hours under or
  over their equal share (:func:`~backfill.measures.usershares.share_balance`);
* ``planning``: :data:`~backfill.measures.planning.PLANNING_KEYS`
  (:func:`~backfill.measures.planning.planning_summary`); the run records its reservations for them.

A run that plans resources besides processors (a scheduler built with ``resources``) has two more
standard columns per resource: ``utilization_<name>`` (``utilization_memory``: the
:func:`~backfill.measures.resource_use.resource_utilization` of that resource) and
``held_back_<name>`` (the seconds it held the oldest waiting job back while its processors were free,
:func:`~backfill.measures.resource_use.held_back`; 0 says the resource never stood alone in its way),
computed whenever the run has resources, since they cost about what ``utilization`` costs, and
absent otherwise, so that the rows of runs of processors alone keep their columns
(:func:`is_resource_column` recognises them). A run on a node machine (a scheduler built with
``nodes``) has :data:`~backfill.measures.nodes.NODE_COLUMNS` in the same way: ``fragmentation``,
the job-seconds jobs waited while the machine-wide free amounts held their request
(:func:`~backfill.measures.nodes.fragmentation`), and ``mean_fragmentation``, that per completed
job; :func:`is_machine_column` recognises both kinds.

Examples:
    >>> "strict_unfairness" in MEASURE_COLUMNS, MEASURE_GROUPS["lw_mean_bsld"]
    (True, 'category')
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Collection, Iterable
from typing import Any

import numpy as np

from backfill.errors import BackfillError
from backfill.experiments.fair_start import fair_start_times
from backfill.experiments.progress import Progress
from backfill.measures.fairness import unfairness
from backfill.measures.fairshare import fair_shares, resources_received
from backfill.measures.groups import CATEGORIES, GROUP_KEYS, per_category, per_user
from backfill.measures.metrics import DEFAULT_BOUND, METRIC_NAMES, SUMMARY_KEYS, metric_label
from backfill.measures.nodes import NODE_COLUMNS
from backfill.measures.planning import PLANNING_KEYS, planning_summary
from backfill.measures.resource_use import held_back_column, utilization_column
from backfill.measures.trim import Trim, measured_jobs, trim_schedule
from backfill.measures.usershares import share_balance, share_deviation
from backfill.schedule import Schedule
from backfill.schedulers.machinery.protocol import Scheduler

__all__ = [
    "EXTRA_COLUMNS",
    "METRIC_COLUMNS",
    "MEASURE_COLUMNS",
    "MEASURE_GROUPS",
    "column_label",
    "extra_measures",
    "is_machine_column",
    "is_resource_column",
    "measure_column",
    "needs_reservations",
    "resource_of_column",
]

#: The standard columns of a result row that measure its schedule, always computed:
#: :data:`~backfill.measures.metrics.SUMMARY_KEYS` and ``seconds``, the wall time of the simulation.
METRIC_COLUMNS: tuple[str, ...] = (*SUMMARY_KEYS, "seconds")

_FAIR_START = ("strict_unfairness", "relaxed_unfairness")
_FAIR_SHARE = ("fair_share_unfairness", "weighted_fair_share_unfairness")
_CATEGORY = tuple(f"{c.lower()}_{key}" for c in CATEGORIES for key in GROUP_KEYS)
_USER = (
    "users",
    "user_mean_wait",
    "user_mean_bsld",
    "worst_user_mean_wait",
    "worst_user_mean_bsld",
    "worst_user_max_wait",
    "under_shared",
    "over_shared",
)

#: The group of each column computed only when asked for, in the order rows hold them.
MEASURE_GROUPS: dict[str, str] = {
    **dict.fromkeys(_FAIR_START, "fair_start"),
    **dict.fromkeys(_FAIR_SHARE, "fair_share"),
    **dict.fromkeys(_CATEGORY, "category"),
    **dict.fromkeys(_USER, "user"),
    **dict.fromkeys(PLANNING_KEYS, "planning"),
}
#: The columns computed only when asked for.
EXTRA_COLUMNS: tuple[str, ...] = tuple(MEASURE_GROUPS)
#: Every measure a result row can hold: the standard columns, then :data:`EXTRA_COLUMNS`.
MEASURE_COLUMNS: tuple[str, ...] = (*METRIC_COLUMNS, *EXTRA_COLUMNS)

#: The share-balance threshold of the ``user`` group: Vasupongayya's 50 node-hours, in seconds.
_SHARE_THRESHOLD = 50 * 3600.0

_LABELS: dict[str, tuple[str, str]] = {
    "strict_unfairness": ("mean strict fair-start unfairness", "s"),
    "relaxed_unfairness": ("mean relaxed fair-start unfairness", "s"),
    "fair_share_unfairness": ("mean fair-share shortfall", "processor-s"),
    "weighted_fair_share_unfairness": ("mean weighted fair-share shortfall", "processor-s"),
    "users": ("users with a completed job", ""),
    "user_mean_wait": ("mean over users of their mean wait", "s"),
    "user_mean_bsld": ("mean over users of their mean bounded slowdown", ""),
    "worst_user_mean_wait": ("worst user's mean wait", "s"),
    "worst_user_mean_bsld": ("worst user's mean bounded slowdown", ""),
    "worst_user_max_wait": ("worst user's maximum wait", "s"),
    "under_shared": ("users under their share by 50 processor-hours", "fraction of the users"),
    "over_shared": ("users over their share by 50 processor-hours", "fraction of the users"),
}
_GROUP_WORDS = {
    "jobs": ("completed jobs", ""),
    "share": ("share of the completed jobs", "%"),
    **{key: METRIC_NAMES[key] for key in GROUP_KEYS[2:]},
}
for _c in CATEGORIES:
    for _key, (_words, _unit) in _GROUP_WORDS.items():
        _LABELS[f"{_c.lower()}_{_key}"] = (f"{_c} {_words}", _unit)


_RESOURCE_PREFIX = utilization_column("")
_HELD_PREFIX = held_back_column("")


def resource_of_column(key: str) -> str | None:
    """The resource a resource column is of (``utilization_<name>``, ``held_back_<name>``), else None.

    Examples:
        >>> resource_of_column("held_back_memory"), resource_of_column("utilization")
        ('memory', None)
    """
    if not isinstance(key, str):
        return None
    for prefix in (_RESOURCE_PREFIX, _HELD_PREFIX):
        name = key.removeprefix(prefix)
        if key != name and name.isidentifier() and name != "processors":
            return name
    return None


def is_resource_column(key: str) -> bool:
    """Whether ``key`` is a resource's column: its utilization or the time it held a job back.

    Examples:
        >>> is_resource_column("utilization_memory"), is_resource_column("utilization")
        (True, False)
        >>> is_resource_column("held_back_memory")
        True
    """
    return resource_of_column(key) is not None


def is_machine_column(key: str) -> bool:
    """Whether ``key`` is a column only the runs of some machines have: a resource's, or a node machine's.

    Examples:
        >>> is_machine_column("fragmentation"), is_machine_column("utilization_memory")
        (True, True)
        >>> is_machine_column("utilization")
        False
    """
    return key in NODE_COLUMNS or is_resource_column(key)


def column_label(key: str, *, unit: bool = True) -> str:
    """Return a column's name in words (with its unit), as tables and figures title it.

    Examples:
        >>> column_label("strict_unfairness"), column_label("lw_mean_bsld"), column_label("mean_wait")
        ('mean strict fair-start unfairness (s)', 'LW mean bounded slowdown', 'mean wait (s)')
        >>> column_label("utilization_memory")
        'memory utilization (fraction of the memory)'
    """
    if key.startswith(_HELD_PREFIX) and is_resource_column(key):
        name = key.removeprefix(_HELD_PREFIX)
        return f"oldest waiting job held back by {name}" + (" (s)" if unit else "")
    if is_resource_column(key):
        name = key.removeprefix(_RESOURCE_PREFIX)
        return f"{name} utilization" + (f" (fraction of the {name})" if unit else "")
    if key not in _LABELS:
        return metric_label(key, unit=unit)
    name, shown = _LABELS[key]
    return f"{name} ({shown})" if unit and shown else name


def measure_column(text: str) -> str:
    """Return the column of :data:`MEASURE_COLUMNS` ``text`` names (hyphens for underscores allowed).

    ``--metric`` reads its values so. A resource's columns, ``utilization_<name>`` and
    ``held_back_<name>`` (:func:`is_resource_column`), are columns too: rows have them when their
    run plans that resource; so are ``fragmentation`` and ``mean_fragmentation``, on a node machine.

    Raises:
        BackfillError: An unknown name, with the nearest known ones.

    Examples:
        >>> measure_column("relaxed_unfairness")
        'relaxed_unfairness'
        >>> measure_column("strict-unfairness")  # the command line's spelling, with hyphens
        'strict_unfairness'
        >>> measure_column("unfair")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        backfill.errors.BackfillError: unknown metric 'unfair' (did you mean strict_unfairness, \
relaxed_unfairness, fair_share_unfairness?); known: jobs, rejected, mean_wait, ...
    """
    if not isinstance(text, str):
        raise BackfillError(f"a metric is named by a string, got {text!r}")
    if text in MEASURE_COLUMNS:
        return text
    spelled = text.replace("-", "_")
    if spelled in MEASURE_COLUMNS or is_machine_column(spelled):
        return spelled
    near = [c for c in MEASURE_COLUMNS if spelled and spelled in c][:3]
    near = near or difflib.get_close_matches(spelled, MEASURE_COLUMNS, n=3, cutoff=0.6)
    hint = f" (did you mean {', '.join(near)}?)" if near else ""
    raise BackfillError(
        f"unknown metric {text!r}{hint}; known: {', '.join(METRIC_COLUMNS)}, and the fairness, share, "
        "category, user and planning measures of backfill.experiments.columns (listed by --help), "
        "and utilization_<resource>, held_back_<resource> for a resource planned, "
        f"{', '.join(NODE_COLUMNS)} on a node machine"
    )


def needs_reservations(columns: Iterable[str]) -> bool:
    """Whether computing ``columns`` needs the run's reservation log (the planning measures do)."""
    return any(MEASURE_GROUPS.get(c) == "planning" for c in columns)


def _mean(values: Iterable[float]) -> float:
    array = np.fromiter(values, dtype=np.float64)
    array = array[np.isfinite(array)]
    return float(array.mean()) if array.size else float("nan")


def _worst(values: Iterable[float]) -> float:
    array = np.fromiter(values, dtype=np.float64)
    array = array[np.isfinite(array)]
    return float(array.max()) if array.size else float("nan")


def _user_measures(s: Schedule, bound: float) -> dict[str, float]:
    users = per_user(s, bound=bound)
    under, over = share_balance(share_deviation(s), _SHARE_THRESHOLD)
    return {
        "users": float(len(users)),
        "user_mean_wait": _mean(u["mean_wait"] for u in users.values()),
        "user_mean_bsld": _mean(u["mean_bsld"] for u in users.values()),
        "worst_user_mean_wait": _worst(u["mean_wait"] for u in users.values()),
        "worst_user_mean_bsld": _worst(u["mean_bsld"] for u in users.values()),
        "worst_user_max_wait": _worst(u["max_wait"] for u in users.values()),
        "under_shared": under,
        "over_shared": over,
    }


def _shortfall(s: Schedule, keep: Any, weighted: bool) -> float:
    # The shares depend on every job active beside each one, so they come from the whole schedule.
    shortfall = fair_shares(s, weighted=weighted) - resources_received(s)
    chosen = shortfall[keep & np.isfinite(shortfall)]
    return float(np.maximum(chosen, 0.0).mean()) if chosen.size else float("nan")


def extra_measures(
    schedule: Schedule,
    columns: Collection[str],
    *,
    scheduler: Scheduler | None = None,
    bound: float = DEFAULT_BOUND,
    trim: Trim | None = None,
    progress: Progress | Callable[[int], object] = False,
) -> dict[str, float]:
    """Return the chosen :data:`EXTRA_COLUMNS` of a schedule, over the jobs ``trim`` keeps.

    The columns come in the vocabulary's order.

    Args:
        schedule: A finished schedule; for the planning measures, one recorded with its reservations.
        columns: Names from :data:`MEASURE_COLUMNS`; the standard ones are ignored here.
        scheduler: The prototype that made ``schedule`` (the fair start times re-simulate under it);
            needed only for the ``fair_start`` group.
        bound: The bounded-slowdown threshold in seconds.
        trim: The warm-up and cool-down jobs to leave out of the measures (:class:`Trim`); None
            leaves none out.
        progress: Show a progress bar (True) or lines (``"lines"``) while the fair start times are
            computed, or report their
            rows to this function (as :func:`~backfill.experiments.fair_start.fair_start_times`).

    Raises:
        BackfillError: An unknown column, ``columns`` a single string, or a fair-start column
            without ``scheduler``.

    Examples:
        >>> from backfill import EASY, lublin_feitelson, simulate
        >>> w = lublin_feitelson(40, machine_size=16)
        >>> row = extra_measures(simulate(w, EASY()), ["relaxed_unfairness", "users"], scheduler=EASY())
        >>> list(row), row["relaxed_unfairness"] >= 0
        (['relaxed_unfairness', 'users'], True)
    """
    if isinstance(columns, str):
        raise BackfillError(f"columns is a collection of names, got the string {columns!r}")
    for c in columns:
        measure_column(c)
    wanted = [c for c in EXTRA_COLUMNS if c in columns]
    trim = trim or Trim()
    groups = {MEASURE_GROUPS[c] for c in wanted}
    keep = measured_jobs(schedule.submit, trim)
    measured = trim_schedule(schedule, trim)
    out: dict[str, float] = {}
    if "fair_start" in groups:
        if scheduler is None:
            raise BackfillError("the fair-start unfairness needs the scheduler that made the schedule")
        fst = fair_start_times(
            schedule.workload,
            scheduler,
            strict="strict_unfairness" in wanted,
            relaxed="relaxed_unfairness" in wanted,
            workers=1,
            progress=progress,
        )
        out["strict_unfairness"] = unfairness(measured, fst.strict[keep])
        out["relaxed_unfairness"] = unfairness(measured, fst.relaxed[keep])
    if "fair_share" in groups:
        out["fair_share_unfairness"] = _shortfall(schedule, keep, weighted=False)
        out["weighted_fair_share_unfairness"] = _shortfall(schedule, keep, weighted=True)
    if "category" in groups:
        for category, stats in per_category(measured, bound=bound).items():
            out |= {f"{category.lower()}_{key}": value for key, value in stats.items()}
    if "user" in groups:
        out |= _user_measures(measured, bound)
    if "planning" in groups:
        out |= planning_summary(measured)
    return {c: float(out[c]) for c in wanted}
