"""Node requests stated per job, as a Batsim workload (JSON) states them: a table of job id -> request.

A :class:`~backfill.workloads.workload.Job` has no fields for a node request; a
:class:`~backfill.workloads.nodes.Machine` asks its ``request`` rule for each job's. A
:class:`RequestTable` is such a rule made of data: the requests of the jobs that state one, and
:func:`~backfill.workloads.nodes.tasks_request` for the others. :func:`read_batsim_requests` reads
it from the optional fields of a Batsim workload's job objects, named after Slurm's options (Batsim
itself, pybatsim and evalys name no such fields: Batsim's job asks ``res`` resources, and forwards
the fields it does not know to the scheduler):

* ``nodes`` (Slurm's ``--nodes``): nodes, each holding one share (the nodes form); without it,
  the job asks tasks (the tasks form);
* ``tasks_per_node`` (``--ntasks-per-node``): tasks on each node (nodes form; default 1);
* ``cores_per_task`` (``--cpus-per-task``): cores of each task (default 1);
* ``memory_per_node`` (``--mem``) and ``gpus_per_node`` (``--gpus-per-node``): of each node (nodes
  form);
* ``memory_per_task`` (``--mem-per-cpu`` times the cores of a task) and ``gpus_per_task``
  (``--gpus-per-task``): of each task (tasks form);
* ``exclusive`` (``--exclusive``): true, every node the job uses is its own while it runs.

A memory is a whole number of kB (as SWF counts) or a size such as ``"12G"`` or ``"512M"``. The
job's ``res`` stays the cores it asks: ``nodes x tasks_per_node x cores_per_task`` in the nodes
form, ``tasks x cores_per_task`` in the tasks form (which has ``res / cores_per_task`` tasks), and a
file where they differ is refused, so that the pool model (``res``) and the node model never count
a job differently. A job without a memory field of its own, but with Batsim's whole-job ``memory``
(kB), asks that memory spread evenly over its nodes or tasks (rounded up to a whole kB).

Examples:
    >>> import io
    >>> text = '''{"nb_res": 16, "profiles": {"d": {"type": "delay", "delay": 10}}, "jobs": [
    ...   {"id": 1, "subtime": 0, "res": 8, "profile": "d",
    ...    "nodes": 2, "tasks_per_node": 4, "memory_per_node": "12G", "gpus_per_node": 2},
    ...   {"id": 2, "subtime": 0, "res": 4, "profile": "d", "cores_per_task": 2, "exclusive": true},
    ...   {"id": 3, "subtime": 0, "res": 1, "profile": "d"}]}'''
    >>> table = read_batsim_requests(io.StringIO(text))
    >>> table
    RequestTable(2 jobs from <string>)
    >>> table.requests[1]
    NodeRequest(count=2, share=(('cores', 4), ('memory', 12582912), ('gpus', 2)), per_node=1, exclusive=False)
    >>> table.requests[2]
    NodeRequest(count=2, share=(('cores', 2),), per_node=None, exclusive=True)
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Mapping
from typing import IO, Any

import attrs

from backfill.errors import BatsimError, ParameterError
from backfill.workloads._batsim_ids import job_ids
from backfill.workloads._batsim_json import REQUEST_FIELDS, is_int, load_document, memory_field, shown
from backfill.workloads.limits import MAX_AMOUNT
from backfill.workloads.nodes import NodeRequest, tasks_request
from backfill.workloads.sizes import memory_size, memory_text
from backfill.workloads.workload import Job

__all__ = ["RequestTable", "read_batsim_requests", "request_fields", "table_requests"]

_NODE_ONLY = ("tasks_per_node", "memory_per_node", "gpus_per_node")
_TASK_ONLY = ("memory_per_task", "gpus_per_task")


def _frozen_requests(value: object) -> Mapping[int, NodeRequest]:
    if not isinstance(value, Mapping):
        raise ParameterError(f"RequestTable.requests must be a mapping job id -> NodeRequest, got {value!r}")
    for job_id, request in value.items():
        if not is_int(job_id):
            raise ParameterError(f"RequestTable: a job id must be an int, got {job_id!r}")
        if not isinstance(request, NodeRequest):
            raise ParameterError(
                f"RequestTable: job {job_id}'s request must be a NodeRequest, got {request!r}"
            )
    # Sorted by job id: one table, one order, whatever order it was given in (its digest depends on it).
    return {job_id: value[job_id] for job_id in sorted(value)}


@attrs.frozen(repr=False)
class RequestTable:
    """A node request rule of data: each listed job's :class:`NodeRequest`; :func:`tasks_request` otherwise.

    Give it to a :class:`~backfill.workloads.nodes.Machine` as its ``request``. It pickles (a sweep
    sends it to its workers) and its :attr:`digest` identifies its content (a cell's cache key holds
    it, so two tables never share results).

    Args:
        requests: Job id -> its request; kept sorted by job id.
        source: Where the table comes from (a file's base name), for its repr and labels; not part
            of equality or of the digest.

    Examples:
        >>> table = RequestTable({7: NodeRequest.nodes(2, gpus_per_node=1)}, source="w.json")
        >>> job = Job(id=7, submit=0.0, processors=2, runtime=1.0, estimate=1.0)
        >>> table(job).per_node, table(attrs.evolve(job, id=8)) == tasks_request(attrs.evolve(job, id=8))
        (1, True)
        >>> table, len(table.digest)
        (RequestTable(1 job from w.json), 64)
    """

    requests: Mapping[int, NodeRequest] = attrs.field(converter=_frozen_requests)
    source: str = attrs.field(default="", eq=False, validator=attrs.validators.instance_of(str))

    def __call__(self, job: Job) -> NodeRequest:
        """The job's request: the table's, or :func:`tasks_request`'s for a job it does not list."""
        request = self.requests.get(job.id)
        return tasks_request(job) if request is None else request

    def __repr__(self) -> str:
        count = len(self.requests)
        return f"RequestTable({count} job{'' if count == 1 else 's'} from {self.source or '<data>'})"

    def __hash__(self) -> int:
        return hash(self.digest)

    def __len__(self) -> int:
        return len(self.requests)

    @property
    def digest(self) -> str:
        """The SHA-256 (hex) of the table's content: equal tables, equal digests."""
        rows = [
            [job_id, r.count, [list(a) for a in r.share], r.per_node, r.exclusive]
            for job_id, r in self.requests.items()
        ]
        return hashlib.sha256(json.dumps(rows, separators=(",", ":")).encode()).hexdigest()

    @property
    def label(self) -> str:
        """A short name for labels: the source and the digest's first 8 digits (``w.json@1a2b3c4d``)."""
        return f"{self.source or 'table'}@{self.digest[:8]}"


# --------------------------------------------------------------------------------------------------
# Reading and writing the fields of a job object
# --------------------------------------------------------------------------------------------------


def _count(raw: Mapping[str, Any], field: str, refuse: Any) -> int | None:
    value = raw.get(field)
    if value is None:
        return None
    if not (is_int(value) and 1 <= value < MAX_AMOUNT):
        raise refuse(f"{field} must be an integer from 1, below 2**62, got {shown(value)}")
    return int(value)


def _amount(raw: Mapping[str, Any], field: str, refuse: Any) -> int | None:
    value = raw.get(field)
    if value is None:
        return None
    if field.startswith("memory") and isinstance(value, str):
        try:
            return memory_size(value)
        except Exception as e:
            raise refuse(f"{field}: {e}") from None
    if not (is_int(value) and 0 <= value < MAX_AMOUNT):
        what = 'a whole number of kB or a size such as "12G"' if field.startswith("memory") else "an integer"
        raise refuse(f"{field} must be {what} from 0, below 2**62, got {shown(value)}")
    return int(value)


def _job_request(raw: Mapping[str, Any], name: str, where: str) -> NodeRequest | None:
    """The request a job object states, checked against its ``res``; None if it states none."""

    def refuse(reason: str) -> BatsimError:
        return BatsimError(reason, path=where, job=name)

    if not any(field in raw for field in REQUEST_FIELDS):
        return None
    exclusive = raw.get("exclusive", False)
    if not isinstance(exclusive, bool):
        raise refuse(f"exclusive must be true or false, got {shown(exclusive)}")
    res = raw.get("res")
    if not is_int(res):
        raise refuse(f"res must be an integer, got {shown(res)}")
    cores_per_task = _count(raw, "cores_per_task", refuse) or 1
    memory = memory_field(raw, name, where)
    nodes = _count(raw, "nodes", refuse)
    try:
        if nodes is not None:
            stray = [f for f in _TASK_ONLY if f in raw]
            if stray:
                raise refuse(f"{stray[0]} is of a request of tasks; with nodes, give {stray[0][:-4]}node")
            per_node = _count(raw, "tasks_per_node", refuse) or 1
            asked = nodes * per_node * cores_per_task
            if asked != res:
                raise refuse(
                    f"res {res} differs from nodes x tasks_per_node x cores_per_task = "
                    f"{nodes} x {per_node} x {cores_per_task} = {asked}"
                )
            memory_per_node = _amount(raw, "memory_per_node", refuse)
            if memory_per_node is None:
                memory_per_node = math.ceil(memory / nodes) if memory else 0
            return NodeRequest.nodes(
                nodes,
                tasks_per_node=per_node,
                cores_per_task=cores_per_task,
                memory_per_node=memory_per_node,
                gpus_per_node=_amount(raw, "gpus_per_node", refuse) or 0,
                exclusive=exclusive,
            )
        stray = [f for f in _NODE_ONLY if f in raw]
        if stray:
            raise refuse(f"{stray[0]} is of a request of nodes: give nodes too")
        tasks, rest = divmod(res, cores_per_task)
        if rest or not tasks:
            raise refuse(f"res {res} is not a whole number (from 1) of tasks of {cores_per_task} cores")
        memory_per_task = _amount(raw, "memory_per_task", refuse)
        if memory_per_task is None:
            memory_per_task = math.ceil(memory / tasks) if memory else 0
        return NodeRequest.tasks(
            tasks,
            cores_per_task=cores_per_task,
            memory_per_task=memory_per_task,
            gpus_per_task=_amount(raw, "gpus_per_task", refuse) or 0,
            exclusive=exclusive,
        )
    except ParameterError as e:
        raise refuse(str(e)) from None


def table_requests(requests: RequestTable | None) -> Mapping[int, NodeRequest]:
    """A table's requests by job id; none for None.

    Raises:
        ParameterError: ``requests`` is neither a :class:`RequestTable` nor None.

    Examples:
        >>> table_requests(None), table_requests(RequestTable({3: NodeRequest.nodes(1)}))[3].count
        ({}, 1)
    """
    if requests is not None and not isinstance(requests, RequestTable):
        raise ParameterError(f"requests must be a RequestTable or None, got {type(requests).__name__}")
    return {} if requests is None else requests.requests


def request_fields(request: NodeRequest, job_id: int, processors: int) -> dict[str, Any]:
    """The fields that state ``request`` in a job object of ``processors`` (its ``res``).

    A request of nodes is written with ``tasks_per_node`` the cores of a node's share (a
    :class:`NodeRequest` keeps the cores, not how tasks and cores per task made them), which reads
    back as the same request. Memory is written as :func:`~backfill.workloads.sizes.memory_text`
    writes a size (``"12G"``), which reads back as the same kB.

    Raises:
        ParameterError: The request's cores differ from ``processors``, it asks a resource other
            than cores, memory and GPUs (no field states one), or takes neither one share per node
            nor any number (what the two forms state).

    Examples:
        >>> request_fields(NodeRequest.nodes(2, tasks_per_node=4, memory_per_node=2**20), 1, 8)
        {'nodes': 2, 'tasks_per_node': 4, 'memory_per_node': '1G'}
        >>> request_fields(NodeRequest.tasks(4, exclusive=True), 2, 4)
        {'exclusive': True}
    """
    if request.processors != processors:
        raise ParameterError(
            f"job {job_id}: its node request asks {request.processors} cores, its res is {processors}"
        )
    other = [n for n, _ in request.share if n not in ("cores", "memory", "gpus")]
    if other:
        raise ParameterError(
            f"job {job_id}: a Batsim job object has no field for {other[0]} in a node request"
        )
    cores, memory, gpus = (request.amount(n) for n in ("cores", "memory", "gpus"))
    if request.per_node == 1:
        fields: dict[str, Any] = {"nodes": request.count}
        unit = "node"
        if cores != 1:
            fields["tasks_per_node"] = cores
    elif request.per_node is None:
        fields, unit = {}, "task"
        if cores != 1:
            fields["cores_per_task"] = cores
    else:
        raise ParameterError(
            f"job {job_id}: a node request of at most {request.per_node} shares per node has no "
            "Batsim fields (nodes take one share each; tasks, any number)"
        )
    if memory:
        fields[f"memory_per_{unit}"] = memory_text(memory)
    if gpus:
        fields[f"gpus_per_{unit}"] = gpus
    if request.exclusive:
        fields["exclusive"] = True
    return fields


def read_batsim_requests(source: str | os.PathLike[str] | IO[str] | IO[bytes]) -> RequestTable:
    """The node requests a Batsim workload's jobs state, as a :class:`RequestTable`.

    The jobs carry the ids :func:`~backfill.workloads.batsim.read_batsim_workload` gives them; a job
    that states no request (none of the fields above) is not in the table, which gives it
    :func:`~backfill.workloads.nodes.tasks_request`. Only the fields read here are checked: read the
    workload itself with :func:`~backfill.workloads.batsim.read_batsim_workload`.

    Args:
        source: A path (to a regular file) or an open file, text or binary, of JSON text.

    Raises:
        BatsimError: The file is not a Batsim workload's JSON, or a job's request is not one: a
            field of the wrong type or out of range, a field of one form given with the other's,
            or cores that differ from ``res``; naming the file and the job.
        OSError: The file cannot be opened or read.

    Examples:
        >>> import io
        >>> text = '''{"nb_res": 4, "profiles": {}, "jobs": [
        ...   {"id": "a", "subtime": 0, "res": 3, "profile": "d", "nodes": 2}]}'''
        >>> read_batsim_requests(io.StringIO(text))
        Traceback (most recent call last):
        ...
        backfill.errors.BatsimError: <string>: job 'a': res 3 differs from nodes x tasks_per_node x ...
    """
    if isinstance(source, str | os.PathLike):
        where, base = os.fspath(source), os.path.basename(os.fspath(source))
    elif callable(getattr(source, "read", None)):
        name = getattr(source, "name", None)
        where = name if isinstance(name, str) and name else "<string>"
        base = os.path.basename(where) if where != "<string>" else where
    else:
        raise ParameterError(f"source must be a path or an open file, got {type(source).__name__}")
    doc = load_document(source, where)
    jobs = doc.get("jobs") if isinstance(doc, dict) else None
    if not isinstance(jobs, list):
        raise BatsimError("a Batsim workload is a JSON object with a 'jobs' array", path=where)
    ids, given, _, _ = job_ids(jobs, where)
    requests = {}
    for raw, job_id, name in zip(jobs, ids, given, strict=True):
        request = _job_request(raw, name, where)
        if request is not None:
            requests[job_id] = request
    return RequestTable(requests, source=base)
