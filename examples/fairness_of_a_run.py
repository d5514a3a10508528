"""How fair were EASY and Conservative backfilling to the jobs of one run?

Three measures from the literature, for each scheduler on the same Lublin-Feitelson workload:

- Fair Start Times (Sabin and Sadayappan; Rajbhandary et al. 2013): a job's strict FST is its start
  had no job arrived after it, its relaxed FST the same but not before the jobs queued at its arrival
  started. ``fair_start_times`` forks the simulation once per job with the scheduler under study; the
  average unfairness is the mean of max(0, start - FST), in seconds.
- Srinivasan et al. (2002): one reference for every scheduler, the job's start had a run of
  FCFS-Conservative switched to FCFS without backfilling at its arrival. ``fairness_buckets`` gives
  the percent of jobs whose bounded slowdown is within 1, 1.5, 2, 4 times this fair slowdown, or beyond.
- Resource equality (Rajbhandary et al. 2013): every job in the system deserves an equal share of
  the processors in use, never more than its width (weighted: a share in proportion to its width);
  the average shortfall of what it received, in processor-seconds.

Run: python examples/fairness_of_a_run.py
"""

from __future__ import annotations

from backfill import (
    EASY,
    Conservative,
    fair_share_unfairness,
    fair_start_times,
    fairness_buckets,
    lublin_feitelson,
    simulate,
    srinivasan_fair_starts,
    unfairness,
    validate_schedule,
    wait_times,
)


def main() -> None:
    workload = lublin_feitelson(500, machine_size=128, seed=1, estimates="f-model")
    print(f"{len(workload)} Lublin-Feitelson jobs on {workload.machine_size} processors, f-model estimates")
    # Srinivasan's reference is FCFS-Conservative whatever the scheduler under study.
    fair = srinivasan_fair_starts(simulate(workload, Conservative()))

    starts, buckets = [], []
    for scheduler in (EASY(), Conservative()):
        schedule = simulate(workload, scheduler)
        validate_schedule(schedule)
        # workers=1: a few hundred forks take a fraction of a second; a process pool would cost more.
        fst = fair_start_times(workload, scheduler, workers=1)
        starts.append(
            (
                schedule.scheduler,
                float(wait_times(schedule).mean()),
                unfairness(schedule, fst.strict),
                unfairness(schedule, fst.relaxed),
                fair_share_unfairness(schedule),
                fair_share_unfairness(schedule, weighted=True),
            )
        )
        buckets.append((schedule.scheduler, fairness_buckets(schedule, fair)))

    print("\nAverage unfairness: seconds late against the FSTs, processor-seconds short of a fair share")
    header = ("scheduler", "mean_wait", "strict_fst", "relaxed_fst", "fair_share", "weighted_share")
    print(f"{header[0]:<14}" + "".join(f"{h:>16}" for h in header[1:]))
    for name, *values in starts:
        print(f"{name:<14}" + "".join(f"{v:>16.1f}" for v in values))

    print("\nSrinivasan et al.: percent of jobs by bounded slowdown / fair slowdown, all runtimes")
    labels = buckets[0][1].buckets
    print(f"{'scheduler':<14}{'jobs':>6}" + "".join(f"{b:>8}" for b in labels))
    for name, table in buckets:
        i = table.groups.index("all")
        print(f"{name:<14}{table.counts[i]:>6}" + "".join(f"{v:>8.1f}" for v in table.shares[i]))


if __name__ == "__main__":
    main()
