"""Amounts of several resources at once: a job's request, or what is free, as one small vector.

A scheduler that plans processors alone compares ints: "the job needs 4 processors, 6 are free".
With further resources (memory, GPUs, licences) the same sentences hold of vectors, read resource by
resource: a request *fits* in what is free when it fits in every resource. :class:`Amounts` is that
vector, a tuple of ints (processors first, then each further resource in the machine's order), whose
comparisons and arithmetic read the way the schedulers' code reads for ints:

* ``a <= b``: ``a`` fits in ``b``, every amount of ``a`` at most ``b``'s; ``a > b`` is its
  negation: some amount of ``a`` exceeds ``b``'s (the request does not fit);
* ``a >= b``: ``b`` fits in ``a``; ``a < b`` is its negation: ``a`` falls short of ``b`` somewhere;
* ``a + b``, ``a - b``: resource by resource (not the concatenation of tuples);
* ``a.meet(b)``, ``a.join(b)``: the least and the most of each resource (``min`` and ``max`` of two
  vectors would read the comparisons above, which are not a total order: use these).

Comparing or adding an :class:`Amounts` with anything else (an int, a plain tuple, a vector of
another length) raises :class:`TypeError`: a scheduler that mixed a width with a count would
otherwise compute a silently wrong plan.

:func:`amount_of` reads one resource, by name, of such a value or of a plain count of processors,
so that code reading "the memory free now" runs with and without resources.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral
from operator import add, ge, gt, le, lt, sub
from typing import Any, Protocol

from backfill.errors import ParameterError


class _Named(Protocol):
    """A resource as :func:`amount_of` reads it: by its name (a Resource, without importing its module)."""

    @property
    def name(self) -> str: ...


__all__ = ["Amounts", "amount_of"]


class Amounts(tuple[int, ...]):
    """A vector of resource amounts: processors first, then each further resource.

    Examples:
        >>> need, free = Amounts((4, 2048)), Amounts((6, 1024))
        >>> need <= free, need > free  # 4 of 6 processors fit, 2048 of 1024 memory units do not
        (False, True)
        >>> free - Amounts((2, 1024)), need.meet(free)
        (Amounts(4, 0), Amounts(4, 1024))
        >>> need <= 4
        Traceback (most recent call last):
        ...
        TypeError: '<=' not supported between instances of 'Amounts' and 'int'
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Amounts({', '.join(map(str, self))})"

    def _mismatch(self, op: str, other: object) -> TypeError:
        # Raised, not NotImplemented: a plain tuple would answer a comparison lexicographically.
        return TypeError(
            f"'{op}' not supported between instances of 'Amounts' and '{type(other).__name__}'"
            + (f" of {len(other)} amounts" if isinstance(other, Amounts) else "")
        )

    def _same(self, other: object) -> bool:
        return other.__class__ is Amounts and len(other) == len(self)

    # The comparisons are pairs of negations: `a > b` is `not a <= b`, `a < b` is `not a >= b`.
    # all()/any() over map() of the operator (C level, no Python frame per resource), and the type
    # check inline: these run in the schedulers' inner loops.
    def __le__(self, other: Any) -> bool:
        if other.__class__ is not Amounts or len(other) != len(self):
            raise self._mismatch("<=", other)
        return all(map(le, self, other))

    def __gt__(self, other: Any) -> bool:
        if other.__class__ is not Amounts or len(other) != len(self):
            raise self._mismatch(">", other)
        return any(map(gt, self, other))

    def __ge__(self, other: Any) -> bool:
        if other.__class__ is not Amounts or len(other) != len(self):
            raise self._mismatch(">=", other)
        return all(map(ge, self, other))

    def __lt__(self, other: Any) -> bool:
        if other.__class__ is not Amounts or len(other) != len(self):
            raise self._mismatch("<", other)
        return any(map(lt, self, other))

    def __add__(self, other: Any) -> Amounts:
        if other.__class__ is not Amounts or len(other) != len(self):
            raise self._mismatch("+", other)
        return Amounts(map(add, self, other))

    def __sub__(self, other: Any) -> Amounts:
        if other.__class__ is not Amounts or len(other) != len(self):
            raise self._mismatch("-", other)
        return Amounts(map(sub, self, other))

    def __neg__(self) -> Amounts:
        return Amounts([-a for a in self])

    # A tuple would repeat itself; nothing here means that.
    def __mul__(self, other: Any) -> Amounts:
        return NotImplemented

    __rmul__ = __mul__

    def __eq__(self, other: object) -> bool:
        return other.__class__ is Amounts and tuple.__eq__(self, other)  # unequal lengths: False

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = tuple.__hash__

    def meet(self, other: Amounts) -> Amounts:
        """The least of each resource. O(r) for r resources.

        Examples:
            >>> Amounts((4, 10)).meet(Amounts((6, 2)))
            Amounts(4, 2)
        """
        if not self._same(other):
            raise TypeError(f"meet needs Amounts of {len(self)} resources, got {other!r}")
        return Amounts([a if a < b else b for a, b in zip(self, other, strict=True)])

    def join(self, other: Amounts) -> Amounts:
        """The most of each resource. O(r) for r resources.

        Examples:
            >>> Amounts((4, 10)).join(Amounts((6, 2)))
            Amounts(6, 10)
        """
        if not self._same(other):
            raise TypeError(f"join needs Amounts of {len(self)} resources, got {other!r}")
        return Amounts([a if a > b else b for a, b in zip(self, other, strict=True)])

    @property
    def processors(self) -> int:
        """The first amount: processors. O(1)."""
        return self[0]

    def is_zero(self) -> bool:
        """Whether every amount is 0. O(r)."""
        return not any(self)


def amount_of(value: int | Amounts, name: str = "processors", resources: Sequence[_Named | str] = ()) -> int:
    """One resource's amount in ``value``: a count of processors, or an :class:`Amounts` of ``resources``.

    A scheduler's :attr:`~backfill.schedulers.machinery.base.SchedulerBase.free` and
    :attr:`~backfill.schedulers.machinery.base.SchedulerBase.capacity` (and a job's
    :meth:`~backfill.schedulers.machinery.base.SchedulerBase.request`) are ints without resources and Amounts
    with them; this reads either the same way: ``amount_of(self.free, "memory", self.resources)``.
    ``"processors"`` always works. For a job, ``scheduler.amount(job, name)`` says the same. O(r).

    Args:
        value: An int (processors alone) or an Amounts, processors first then each resource.
        name: ``"processors"`` or the name of one of ``resources``.
        resources: The resources the value holds besides processors, in order (the scheduler's
            ``resources``, or their names); none for an int.

    Raises:
        ParameterError: If ``name`` is not processors nor one of ``resources`` (naming both), or
            ``value`` does not hold processors and ``resources`` (an int given with resources, a
            negative int, or Amounts of another length).

    Examples:
        >>> free = Amounts((6, 1024))
        >>> amount_of(free, "memory", ["memory"]), amount_of(free, resources=["memory"]), amount_of(6)
        (1024, 6, 6)
        >>> amount_of(free, "gpus", ["memory"])
        Traceback (most recent call last):
        ...
        backfill.errors.ParameterError: no resource 'gpus' is planned; planned: processors, memory
    """
    names = ["processors", *(r if isinstance(r, str) else r.name for r in resources)]
    if name not in names:
        raise ParameterError(f"no resource {name!r} is planned; planned: {', '.join(names)}")
    if isinstance(value, Amounts):
        if len(value) == len(names):
            return value[names.index(name)]
    elif isinstance(value, Integral) and not isinstance(value, bool) and value >= 0 and len(names) == 1:
        return int(value)
    raise ParameterError(
        f"{value!r} does not hold {', '.join(names)}: an int holds processors alone, Amounts one "
        "amount of processors then of each resource"
    )
