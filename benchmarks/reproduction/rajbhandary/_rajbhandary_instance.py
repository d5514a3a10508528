"""The worked instance of Rajbhandary et al. (2013) §4.1 (Fig. 5): five jobs on which DC is unfair.

Five jobs, all estimated at 200 s: J1 (0 s, 90 processors, runs 100 s), J2 (1 s, 45, 100 s), J3 (2 s,
40, 95 s), J4 (3 s, 90, 100 s), J5 (4 s, 45, 100 s). The paper does not give the machine's size: the
widest jobs use 90 processors and J5 could run beside J2 and J3 only from 130 on, so we run it on 100
and on 90. The variant
gives J5 an exact estimate (100 s), for the paper's remark on what happens then. One small result,
``fig5_instance.json``, holds every scheduler's start times, strict FSTs and average strict unfairness.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _common import ONE, Check, cached_result, judged, markdown
from reproduce_rajbhandary import SCHEDULERS, make_scheduler

from backfill import simulate
from backfill.experiments.fair_start import fair_start_times
from backfill.measures.fairness import unfairness
from backfill.workloads.workload import Job, Workload

JOBS = ((0, 90, 100, 200), (1, 45, 100, 200), (2, 40, 95, 200), (3, 90, 100, 200), (4, 45, 100, 200))
#: The machine sizes we run it on; the first is the one the rows report.
SIZES = (100, 90)
SOURCE = "Fig. 5, §4.1"
#: The instance as the paper gives it, and with J5's estimate exact.
VARIANTS = ("as in the paper", "exact J5")


def instance(size: int, *, exact_j5: bool = False) -> Workload:
    """Return the instance on ``size`` processors, with J5's estimate exact if ``exact_j5``."""
    specs = [*JOBS[:4], (4, 45, 100, 100)] if exact_j5 else list(JOBS)
    jobs = [
        Job(id=i + 1, submit=s, processors=p, runtime=r, estimate=e) for i, (s, p, r, e) in enumerate(specs)
    ]
    return Workload.from_jobs(jobs, size)


def compute() -> dict[str, Any]:
    """Run the instance and its variant under every scheduler, on every size (a second)."""
    runs: dict[str, Any] = {}
    for size in SIZES:
        for variant, exact in zip(VARIANTS, (False, True), strict=True):
            workload = instance(size, exact_j5=exact)
            for spec in SCHEDULERS:
                schedule = simulate(workload, make_scheduler(spec))
                fst = fair_start_times(workload, make_scheduler(spec), workers=1)
                runs[f"{size}/{variant}/{spec}"] = {
                    "start": schedule.start.tolist(),
                    "end": schedule.end.tolist(),
                    "strict": fst.strict.tolist(),
                    "unfairness": unfairness(schedule, fst.strict),
                }
    return {"runs": runs}


def result(cache: Path, *, run: bool) -> dict[str, Any] | None:
    """Return the instance's result, computing it if missing and ``run``."""
    return cached_result(cache / "fig5_instance.json", compute, run=run)


def _times(values: list[float]) -> str:
    return ", ".join(f"{value:g}" for value in values)


def checks(cache: Path, *, run: bool) -> list[Check]:
    """Return the rows of the paper's statements about the instance."""
    statements = [
        "Conservative, EASY and PC all generate the same schedule and strict FSTs",
        "DC gives J1-J4 the same strict FSTs as Conservative",
        "Under DC, J5 backfills as soon as J3 finishes, while J2 still runs and J4 cannot start",
        "That delays J4 past its strict FST: DC is significantly unfair here, where Conservative is not",
        "With J5's runtime accurately estimated, Conservative backfills J5 too, as DC does",
        "With J5 accurately estimated, Conservative and DC give identical strict FSTs and are equally unfair",
    ]
    found = result(cache, run=run)
    if found is None:
        why = "not attempted, because the runs it needs have not been made yet."
        return [Check(SOURCE, text, "not run yet", "not checkable", why) for text in statements]
    runs = found["runs"]
    size = SIZES[0]
    rows = []
    for index, text in enumerate(statements):
        per_size = [_judge(index, runs, each) for each in SIZES]
        ours, agree = per_size[0]
        same = all(other[1] == agree for other in per_size[1:])
        others = names_of(SIZES[1:])
        ours += f" ({size} processors; {'the same' if same else 'not so'} on {others})"
        rows.append(Check(SOURCE, text, ours, judged(ONE, "holds" if agree else "differs")))
    return rows


def names_of(sizes: tuple[int, ...]) -> str:
    return " and ".join(f"{size}" for size in sizes) + " processors"


def _judge(index: int, runs: dict[str, Any], size: int) -> tuple[str, bool]:
    """Return our sentence and whether it agrees, for statement ``index`` on ``size`` processors."""

    def cell(spec: str, variant: str = VARIANTS[0]) -> dict[str, Any]:
        return runs[f"{size}/{variant}/{spec}"]  # type: ignore[no-any-return]

    con, dc = cell("Conservative"), cell("DC")
    if index == 0:
        trio = [cell(spec) for spec in ("Conservative", "EASY", "PC")]
        agree = all(c["start"] == con["start"] and c["strict"] == con["strict"] for c in trio)
        return f"starts {_times(con['start'])}, strict FSTs {_times(con['strict'])} under all three", agree
    if index == 1:
        agree = dc["strict"][:4] == con["strict"][:4]
        return f"DC {_times(dc['strict'][:4])}, Conservative {_times(con['strict'][:4])}", agree
    if index == 2:
        j5, j3_end, j2_end = dc["start"][4], dc["end"][2], dc["end"][1]
        agree = j5 == j3_end and j5 < j2_end and dc["start"][3] > j5
        return (
            f"J5 starts at {j5:g}, J3 ends at {j3_end:g}, J2 at {j2_end:g}; J4 starts at {dc['start'][3]:g}",
            agree,
        )
    if index == 3:
        late = dc["start"][3] - dc["strict"][3]
        agree = late > 0 and dc["unfairness"] > con["unfairness"] == 0
        text = (
            f"J4 starts {late:g} s after its strict FST; average strict unfairness DC {dc['unfairness']:g} s"
        )
        return text + f", Conservative {con['unfairness']:g} s", agree
    con, dc = cell("Conservative", "exact J5"), cell("DC", "exact J5")
    if index == 4:
        agree = con["start"][4] < con["start"][3] and dc["start"][4] < dc["start"][3]
        return f"J5 starts at {con['start'][4]:g} under Conservative, {dc['start'][4]:g} under DC", agree
    agree = con["strict"] == dc["strict"] and con["unfairness"] == dc["unfairness"]
    text = f"strict FSTs {_times(con['strict'])} and {_times(dc['strict'])}; unfairness {con['unfairness']:g}"
    return text + f" and {dc['unfairness']:g} s", agree


def table(cache: Path) -> str:
    """Return the instance's table: each scheduler's start times, strict FSTs and unfairness."""
    found = result(cache, run=False)
    if found is None:
        return "The §4.1 instance (Fig. 5) has not been run yet.\n"
    rows = []
    for variant in VARIANTS:
        for spec in SCHEDULERS:
            cell = found["runs"][f"{SIZES[0]}/{variant}/{spec}"]
            rows.append(
                [variant, spec, _times(cell["start"]), _times(cell["strict"]), f"{cell['unfairness']:g}"]
            )
    header = ["instance", "scheduler", "starts J1-J5", "strict FSTs J1-J5", "average strict unfairness"]
    title = f"The §4.1 instance (Fig. 5) on {SIZES[0]} processors: start times and strict FSTs, in seconds"
    return f"{title}\n\n{markdown(header, rows, right=4)}\n"
