"""The ``backfill`` command line: simulate schedulers on a workload and print their metrics.

Usage::

    backfill simulate [SWF_PATH] [--scheduler SPEC ...] [--priority NAME ...] [--load FACTOR]
                      [--estimates user|exact] [--jobs N] [--seed S] [--machine-size P]
                      [--job-class batch|interactive|all] [SCHEDULER OPTIONS] [--bound SECONDS]
                      [--warmup N|TIME] [--cooldown N|TIME] [--lenient] [--csv PATH] [--json PATH]
                      [--jobs-csv PATH] [--output-swf PATH]
                      [--output-batsim PATH [--batsim-version 4|5]] [--figures DIR]
                      [--progress | --no-progress]
    backfill compare TRACE_OR_MODEL ... [--scheduler SPEC ...] [--priority NAME ...]
                     [--load FACTOR ...] [--estimates user|exact ...] [SCHEDULER OPTIONS]
                     [--baseline LABEL] [--metric NAME ...] [--bound SECONDS] [--workers N]
                     [--cache DIR] [--csv PATH] [--json PATH] [--jobs-csv PATH] [--figures DIR]
                     [--progress | --no-progress]
    backfill --version

The two commands share their options (:mod:`backfill.cli.options`): the same spellings, values and
messages; ``docs/command-line.md`` describes them, the outputs and their provenance. Every error,
an argument's included, is one line on standard error with exit status 2; a value starting with
``-`` is the value of the option before it (``--window -4h`` is refused as negative).

``simulate``: without ``SWF_PATH`` the workload is synthetic: the Lublin-Feitelson (2003) model
with f-model runtime estimates (so that backfilling and compression have something to gain), 5,000
batch jobs on 128 processors, seed 0. Each schedule is checked with
:func:`~backfill.measures.validation.validate_schedule` before its metrics are printed, and every
job is accounted for: after the reader's report (for a log) the output gives ``N in = S scheduled + R
rejected`` with the rejection reasons. ``--lenient`` skips and counts malformed lines of a log.
The scheduler options come from :mod:`backfill.schedulers.registry`, one per parameter name
(``--depth``, ``--threshold``, ``--window``, ``--goal``, ``--tolerance``, ``--no-restart``, ...),
each applying to every chosen scheduler that takes it, read by that scheduler's own parameter of the
name; ``backfill simulate --help`` lists them, with each meaning a name has.

``compare`` runs a :mod:`backfill.experiments.sweep` grid: every workload (an SWF path, or
``model`` for that synthetic workload, with arguments as in ``model:n=2000,seed=1,machine_size=64``)
under every scheduler (a :class:`~backfill.experiments.sweep.SchedulerSpec` name with the same
parameters, as in ``easy:depth=4``),
priority, load factor and estimate policy. It prints as markdown tables the chosen metrics of each
cell, the account of every job of each workload (dropped by the SWF reader's cleaning policy,
scheduled or rejected, by reason) and the metrics' percent improvement over the baseline; with
``--csv`` and ``--figures`` it writes the rows as CSV and one ``improvement_<metric>.png`` per metric
(:func:`backfill.experiments.plots.improvement_bars`, the ``plot`` extra).

``python -m backfill`` runs the same command line.
"""

from backfill.cli.simulate import (
    DEFAULT_COMPARE_METRICS,
    DEFAULT_JOBS,
    DEFAULT_MACHINE_SIZE,
    DEFAULT_SCHEDULERS,
    build_parser,
    main,
)

__all__ = [
    "DEFAULT_COMPARE_METRICS",
    "DEFAULT_JOBS",
    "DEFAULT_MACHINE_SIZE",
    "DEFAULT_SCHEDULERS",
    "build_parser",
    "main",
]
