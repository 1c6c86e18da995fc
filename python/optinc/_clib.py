"""ctypes declarations of the parts of liboptinc the package calls.

Every structure here mirrors one of include/optinc/*.h field for field, in
the same order and with the same C types, so ctypes lays it out as the C
compiler does (TestLayout in python/tests/test_package.py compiles the
headers and compares sizes and offsets).  Nothing of the library's
arithmetic is repeated here: the package only fills configurations, passes
pointers and reads results.

The library is found through the OPTINC_LIBRARY environment variable (a path
to liboptinc.so), else in the build/ folder of the checkout the package sits
in (python/optinc -> ../../build/liboptinc.so), else where the dynamic
linker finds an installed liboptinc.
"""
import contextlib
import ctypes
import ctypes.util
import os

c_int, c_uint, c_double, c_size_t = ctypes.c_int, ctypes.c_uint, ctypes.c_double, ctypes.c_size_t
c_uint16, c_uint32, c_uint64 = ctypes.c_uint16, ctypes.c_uint32, ctypes.c_uint64
c_char_p, c_void_p = ctypes.c_char_p, ctypes.c_void_p

# Constants of the headers (allreduce.h, onn_aggregate.h, onn.h).
AR_MAX_SERVERS = 256
AR_QUANTIZES = 1
AR_ONN = 2
AR_NET_RING, AR_NET_STAR = 0, 1
ONN_HIST = 8
ONN_CONTINUOUS = 2
OK, ERUN, EINPUT = 0, 1, 2


class CError(ctypes.Structure):        # optinc_error (error.h)
    _fields_ = [("file", ctypes.c_char * 1024), ("line", c_int), ("column", c_int),
                ("message", ctypes.c_char * 1024)]


class CAlgorithm(ctypes.Structure):    # struct optinc_ar_algorithm (allreduce.h)
    _fields_ = [("name", c_char_p), ("summary", c_char_p), ("flags", c_uint),
                ("network", c_int), ("prepare", c_void_p), ("inproc", c_void_p),
                ("mpi", c_void_p)]


class CAggLut(ctypes.Structure):       # optinc_agg_lut (onn_aggregate.h)
    _fields_ = [("servers", c_int), ("bits", c_int), ("digits", c_int), ("radix", c_int),
                ("size", c_size_t), ("code", ctypes.POINTER(c_uint16)),
                ("weight", ctypes.POINTER(c_uint32)), ("source", ctypes.c_char * 1100)]


class CErrHist(ctypes.Structure):      # optinc_err_hist (allreduce.h)
    _fields_ = [("n", c_int), ("delta", ctypes.POINTER(c_int)),
                ("cdf", ctypes.POINTER(c_double)), ("p_error", c_double),
                ("path", ctypes.c_char * 1024)]


class CArConfig(ctypes.Structure):     # optinc_ar_config (allreduce.h)
    _fields_ = [("algorithm", ctypes.POINTER(CAlgorithm)), ("servers", c_int),
                ("bits", c_int), ("block_size", c_int), ("lut", ctypes.POINTER(CAggLut)),
                ("inject", ctypes.POINTER(CErrHist)), ("seed", c_uint64), ("threads", c_int),
                ("error_feedback", c_int), ("stochastic_rounding", c_int)]


class CArStats(ctypes.Structure):      # optinc_ar_stats (allreduce.h)
    _fields_ = [("servers", c_int), ("bytes_sent", c_uint64 * AR_MAX_SERVERS),
                ("bytes_received", c_uint64 * AR_MAX_SERVERS),
                ("messages", c_uint64 * AR_MAX_SERVERS), ("injected_errors", c_uint64)]


class COnnDevices(ctypes.Structure):   # optinc_onn_devices (onn.h)
    _fields_ = [("ideal", c_int), ("phase_sigma_rad", c_double), ("chip_seed", c_uint64),
                ("chip", c_void_p), ("calibrate", c_int), ("measure_phase_sigma_rad", c_double),
                ("measure_splitter_sigma", c_double), ("measured", c_void_p),
                ("program", c_void_p), ("program_ctx", c_void_p)]   # NULL from Python


class COnnReport(ctypes.Structure):    # optinc_onn_report (onn.h)
    _fields_ = [("checked", c_uint64), ("correct", c_uint64), ("accuracy", c_double),
                ("weighted_accuracy", c_double), ("hist", c_uint64 * (2 * ONN_HIST + 1)),
                ("whist", c_double * (2 * ONN_HIST + 1)), ("sampled", c_int),
                ("raw_inputs", c_double), ("abs_error_sum", c_double),
                ("ge2_weight", c_double), ("mean_abs_error_lsb", c_double),
                ("p_error_ge2", c_double), ("screened", c_uint64)]


# Every mirrored structure under its C name, for the layout test.
STRUCTS = {"optinc_error": CError, "struct optinc_ar_algorithm": CAlgorithm,
           "optinc_agg_lut": CAggLut, "optinc_err_hist": CErrHist,
           "optinc_ar_config": CArConfig, "optinc_ar_stats": CArStats,
           "optinc_onn_devices": COnnDevices, "optinc_onn_report": COnnReport}

P = ctypes.POINTER
# name: (return type, argument types), as the headers declare them.
_PROTOTYPES = {
    "optinc_error_format": (c_char_p, [P(CError), c_char_p, c_size_t]),
    "optinc_error_clear": (None, [P(CError)]),
    "optinc_ar_find": (P(CAlgorithm), [c_char_p]),
    "optinc_ar_names": (c_char_p, [c_char_p, c_char_p, c_char_p, c_size_t]),
    "optinc_allreduce_new": (c_int, [P(CArConfig), P(c_void_p), P(CError)]),
    "optinc_allreduce_free": (None, [c_void_p]),
    "optinc_allreduce_set_residuals": (None, [c_void_p, P(c_void_p), c_int]),
    "optinc_allreduce_inproc": (c_int, [c_void_p, c_uint64, P(c_void_p), c_size_t,
                                        P(CArStats), P(CError)]),
    "optinc_agg_lut_exact": (c_int, [c_int, c_int, P(P(CAggLut)), P(CError)]),
    "optinc_agg_lut_onn": (c_int, [c_char_p, c_void_p, c_int, c_int, P(COnnDevices),
                                   P(P(CAggLut)), P(COnnReport), P(CError)]),
    "optinc_agg_lut_free": (None, [P(CAggLut)]),
    "optinc_err_hist_load": (c_int, [c_char_p, c_void_p, P(P(CErrHist)), P(CError)]),
    "optinc_err_hist_from_counts": (c_int, [P(c_uint64), c_int, c_int, P(P(CErrHist)),
                                            P(CError)]),
    "optinc_err_hist_free": (None, [P(CErrHist)]),
    "optinc_chip_spec_open": (c_int, [c_char_p, c_void_p, P(c_void_p), P(CError)]),
    "optinc_chip_spec_free": (None, [c_void_p]),
    "optinc_onn_devices_use_chip": (None, [P(COnnDevices), c_void_p, c_int]),
}


def library_path():
    """The liboptinc.so this package loads (see the module's comment)."""
    env = os.environ.get("OPTINC_LIBRARY")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    checkout = os.path.join(here, os.pardir, os.pardir, "build", "liboptinc.so")
    if os.path.exists(checkout):
        return os.path.normpath(checkout)
    return ctypes.util.find_library("optinc")


def _load():
    path = library_path()
    if not path:
        raise ImportError("optinc: liboptinc.so not found: run `make` in the checkout, or set "
                          "OPTINC_LIBRARY to the library's path")
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError("optinc: cannot load %s (%s): run `make`, or set OPTINC_LIBRARY"
                          % (path, e)) from None
    for name, (restype, argtypes) in _PROTOTYPES.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = restype, argtypes
    return lib, path


lib, path = _load()
# optinc_ar_algorithms[]: the table of algorithms, NULL-terminated.
algorithm_table = ctypes.cast(ctypes.addressof(c_void_p.in_dll(lib, "optinc_ar_algorithms")),
                              P(P(CAlgorithm)))


# The library's linear algebra (a spec compiled when loaded, a chip's drivers
# recompiled from its measurement) gives the same bits only on one OpenBLAS
# thread: OpenBLAS splits its sums across threads.  The CLI pins one thread
# for the whole process (optinc_linalg_deterministic), which cannot find
# OpenBLAS in a library ctypes loads with RTLD_LOCAL; the package looks it up
# through the library's own handle instead and pins one thread only for the
# calls that need it, so the rest of the process keeps its threads.
_blas_set = getattr(lib, "openblas_set_num_threads", None)
_blas_get = getattr(lib, "openblas_get_num_threads", None)
if _blas_set is not None and _blas_get is not None:
    _blas_set.restype, _blas_set.argtypes = None, [c_int]
    _blas_get.restype, _blas_get.argtypes = c_int, []


@contextlib.contextmanager
def one_blas_thread():
    """One OpenBLAS thread for the duration (nothing under another BLAS)."""
    if _blas_set is None or _blas_get is None:
        yield
        return
    threads = _blas_get()
    _blas_set(1)
    try:
        yield
    finally:
        _blas_set(threads)
