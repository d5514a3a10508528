"""Planning with predicted runtimes: the runtime predictors and the planning wrapper that uses them.

:mod:`~backfill.schedulers.prediction.predictors` guesses a job's runtime;
:mod:`~backfill.schedulers.prediction.planning` wraps any scheduler so that it plans with those
guesses. Both build on :mod:`backfill.schedulers.machinery` and on no algorithm.
"""
