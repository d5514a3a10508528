# Shared by _steps.pyx (which defines them) and _loops.pyx (whose loops call them directly).
cimport cython


@cython.boundscheck(False)
@cython.wraparound(False)
cdef inline double _t(list a, Py_ssize_t i):
    return <double>a[i]


@cython.boundscheck(False)
@cython.wraparound(False)
cdef inline long _f(list a, Py_ssize_t i):
    return <long>a[i]


ctypedef fused _number:
    double
    long


cdef Py_ssize_t _first_not_below(_number* a, Py_ssize_t size, _number x)
cdef Py_ssize_t _bisect_right(list a, double x, Py_ssize_t lo)
cdef Py_ssize_t _bisect_left(list a, double x, Py_ssize_t lo)
cdef long _min_free(list times, list free, double start, double end)
cdef long _max_free(list times, list free, double start, double end)
cdef int _add(list times, list free, object start_o, object end_o, long delta) except -1
cdef bint _move(
    list times, list free, object start_o, object end_o, object new_o, object new_end_o, long p
) except -1
cdef double _earliest_move(
    list times, list free, double time, long p, double duration, double current, double before,
    Py_ssize_t* examined, Py_ssize_t* at,
)
