"""The package's objects over liboptinc: errors, aggregation tables, injected
error histograms and all-reduce plans.

Each object owns one C object and frees it once, when it is closed or
collected, but never while a live object borrows it (a plan its table and
histogram, a chip's devices structure its chip file): see _Owner.  Buffers
are handed to C by address, without a copy: a NumPy float32 array or a
torch float32 CPU tensor, C-contiguous and writable; anything else is
refused before C sees it, so a wrong buffer is a Python exception and never
a stray write.  ctypes releases the GIL for the duration of every
call.  A plan holds scratch memory: use one plan from one thread at a time.
"""
import collections
import ctypes
import math
import numbers
import operator
import os
import sys
import threading
import weakref

from . import _clib
from ._clib import lib


class Error(Exception):
    """A failure the library reported: status 2 for bad input (a netlist, a
    histogram, an option), 1 for a run that failed.  file, line and column
    say where in the input (empty or 0 when unknown); str() is the library's
    "FILE:LINE:COL: error: MESSAGE"."""

    def __init__(self, status, file, line, column, message, text):
        super().__init__(text)
        self.status, self.file, self.line, self.column = status, file, line, column
        self.message = message


def _raise(status, err):
    buf = ctypes.create_string_buffer(4200)
    lib.optinc_error_format(ctypes.byref(err), buf, len(buf))
    dec = lambda b: b.decode("utf-8", "replace")
    raise Error(status, dec(err.file), err.line, err.column, dec(err.message), dec(buf.value))


def _call(fn, *args):
    """Calls a library function whose last argument is an optinc_error."""
    err = _clib.CError()
    status = fn(*args, ctypes.byref(err))
    if status:
        _raise(status, err)


def _path(p, what):
    """p (str, bytes or os.PathLike) as the bytes C reads.  One with a NUL is
    refused: C would read the name before the NUL, another file."""
    b = os.fsencode(p)
    if b"\0" in b:
        raise ValueError("%s %r holds a NUL byte: a C path ends at the first NUL, so it "
                         "would name another file" % (what, p))
    return b


# The folder relative data paths fall back on: the checkout the package sits
# in (python/optinc/ -> its root), which holds the shipped netlists/.
DATA_ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                          os.pardir, os.pardir))


def _data_path(p, what):
    """p as _path gives it, where a relative path that names no file from the
    current folder is taken from DATA_ROOT if it names a file there: so the
    shipped netlists/onn4x8.pnl.sp is found from any folder, by every
    function that reads a netlist.  A path found in neither place stays as
    given, so that C's error names what the caller wrote."""
    b = _path(p, what)
    if os.path.isabs(b) or os.path.exists(b):
        return b
    inside = os.path.join(os.fsencode(DATA_ROOT), b)
    return inside if os.path.exists(inside) else b


def _in_python_words(e, words):
    """The Error e with the command line's option names in its message (the
    library speaks to `optinc` users) replaced by the Python arguments of
    words, {option: argument}, longest option first."""
    message = e.message
    for option in sorted(words, key=len, reverse=True):
        message = message.replace(option, words[option])
    text = str(e)
    if text.endswith(e.message):
        text = text[:len(text) - len(e.message)] + message
    return Error(e.status, e.file, e.line, e.column, message, text)


# ---- numeric arguments -------------------------------------------------------
# Checked before C sees them: ctypes would wrap a negative seed or an int too
# wide for its C type without a word, and a NaN compares false with every
# bound, so each is refused here with the range it should be in.

_SEED_MAX = 2 ** 64 - 1             # seeds and steps are uint64_t in the library
_INT_MAX = 2 ** 31 - 1


def _integer(value, what, lo, hi, accepted):
    """value as an int in lo..hi: an integer, or a float of integral value;
    anything else is a ValueError (a TypeError if not a number) saying
    accepted."""
    try:
        n = operator.index(value)
    except TypeError:
        if not isinstance(value, numbers.Real):
            raise TypeError("%s is a %s: give %s" % (what, type(value).__name__, accepted)) \
                from None
        if not math.isfinite(value) or value != math.floor(value):
            raise ValueError("%s %r: give %s" % (what, value, accepted)) from None
        n = int(value)
    if not lo <= n <= hi:
        raise ValueError("%s %r: give %s" % (what, value, accepted))
    return n


def _seed(value, what="seed"):
    return _integer(value, what, 0, _SEED_MAX, "an integer from 0 to 2^64-1")


def _c_int(value, what, rule):
    """An int for C whose range the library checks (it says rule)."""
    return _integer(value, what, -_INT_MAX - 1, _INT_MAX, "an integer (%s)" % rule)


def _servers(value):
    return _c_int(value, "servers", "1 to %d servers" % _clib.AR_MAX_SERVERS)


_PLAN_BITS = "the quantizing algorithms take an even width from 2 to 16"
_TABLE_BITS = "an aggregation table takes an even width from 2 to 12"


def _bits(value, rule=_PLAN_BITS, widest=None):
    """bits as an int; with widest, an even width from 2 to widest, checked
    here so that a bad width is a ValueError naming bits before C reads a
    netlist (whose error would be the ONN's mismatch)."""
    n = _c_int(value, "bits", rule)
    if widest is not None and not (2 <= n <= widest and n % 2 == 0):
        raise ValueError("bits %r: %s" % (value, rule))
    return n


def _block_size(value):
    return _c_int(value, "block_size",
                  "the quantizing algorithms take 1 or more elements per scale block")


def _nonnegative(value, what, unit):
    """A finite float >= 0 (NaN and the infinities are refused)."""
    if not isinstance(value, numbers.Real):
        raise TypeError("%s is a %s: give a finite number of %s >= 0"
                        % (what, type(value).__name__, unit))
    x = float(value)
    if not (math.isfinite(x) and x >= 0):
        raise ValueError("%s %r: give a finite number of %s >= 0" % (what, value, unit))
    return x


# ---- algorithms ------------------------------------------------------------

Algorithm = collections.namedtuple("Algorithm", "name summary quantizes onn network")
Algorithm.__doc__ = """An entry of the library's algorithm table: quantizes (sends b-bit
codes under block scales), onn (aggregates through an ONN's table), network ("ring" or
"star", what its bytes are counted on)."""


def _algorithm(p):
    a = p.contents
    return Algorithm(a.name.decode(), a.summary.decode(), bool(a.flags & _clib.AR_QUANTIZES),
                     bool(a.flags & _clib.AR_ONN),
                     "ring" if a.network == _clib.AR_NET_RING else "star")


def algorithms():
    """Every all-reduce algorithm of the library, in its table's order."""
    out, i = [], 0
    while _clib.algorithm_table[i]:
        out.append(_algorithm(_clib.algorithm_table[i]))
        i += 1
    return out


def _find_algorithm(name):
    p = lib.optinc_ar_find(str(name).encode()) if isinstance(name, str) else None
    if not p:
        buf = ctypes.create_string_buffer(256)
        lib.optinc_ar_names(b", ", b" or ", buf, len(buf))
        raise ValueError("no all-reduce algorithm %r: use %s" % (name, buf.value.decode()))
    return p


def algorithm(name):
    """The entry of the algorithm called name (ValueError when there is none)."""
    return _algorithm(_find_algorithm(name))


# ---- lifetimes ---------------------------------------------------------------
# The library frees nothing a caller still points to, and a C plan borrows
# its table and histogram (a devices structure its chip file) without a
# count of its own.  So each owner here counts the users of its C object:
# itself until it is closed, and every live object that borrows it.  The
# object is freed when the count reaches 0; closing a table a live plan
# uses defers the free to the plan's end instead of refusing, so `with`
# blocks may end in any order.  A borrower's finalizer holds the owners it
# borrows (none of them is collected before it) and lets go of them after
# freeing its own C object.  Finalizers run in whatever thread collects the
# object, so the counts change under a lock.

_users_lock = threading.Lock()


def _free(ptr, free, owners):
    """Frees the C object at ptr (None: there is none), then lets go of the
    owners it borrowed."""
    if ptr is not None:
        free(ptr)
    for owner in owners:
        owner._release()


def _finalizer(user, ptr, free, owners):
    """The finalizer of user (see _free), which now counts as a user of each
    of owners' C objects."""
    with _users_lock:
        for owner in owners:
            owner._users += 1
    return weakref.finalize(user, _free, ptr, free, owners)


class _Owner:
    """Holds a C pointer and frees it once (see above).  Once closed, every
    use raises ValueError; close() again does nothing; a `with` block closes
    it at its end."""

    def _own(self, ptr, free, owners=()):
        self._ptr, self._closed, self._users = ptr, False, 1
        self._finalizer = _finalizer(self, ptr, free, owners)

    def _live(self):
        """The C pointer: every use takes it here, so that a closed object
        raises instead of reaching freed memory."""
        if self._closed:
            raise ValueError("this optinc.%s is closed" % type(self).__name__)
        return self._ptr

    def _release(self):
        with _users_lock:
            self._users -= 1
            last = not self._users
        if last:
            self._finalizer()

    @property
    def closed(self):
        """True once close() has been called (or the with block has ended)."""
        return self._closed

    def close(self):
        """Ends this object's use: its C object is freed now, or when the
        last live object that borrows it (a plan) lets go."""
        with _users_lock:
            closing, self._closed = not self._closed, True
        if closing:
            self._release()

    def __enter__(self):
        self._live()
        return self

    def __repr__(self):
        # From what Python keeps, so that a closed object shows too.
        return "<optinc.%s %s closed=%s>" % (type(self).__name__, self._describe(),
                                             self._closed)

    def __exit__(self, *exc):
        self.close()


# ---- chips and aggregation tables ------------------------------------------

class Chip(_Owner):
    """The devices an ONN is simulated on (optinc_onn_devices).

    Chip() is the ideal chip: continuous phases, no errors.  programmed=True
    uses the phase drivers' codes; phase_sigma (radians) adds a static phase
    error to every phase shifter (and implies programmed, as `optinc train
    --phase-sigma` does); continuous=True keeps the continuous phases with
    that error.  file names a chip file (optinc-onn(1), CHIP FILES) with the
    whole device model instead of those three, and calibrate=True recompiles
    each chip's drivers from a lab's measurement of it (`--chip FILE
    --calibrate`).  seed draws the errors (None: the seed of the run).
    phase_sigma must be finite and >= 0, seed None or an integer from 0 to
    2^64-1 (ValueError otherwise, NaN and the infinities included).  A chip
    is closed as a table is (it holds the chip file C read)."""

    def __init__(self, programmed=False, phase_sigma=0.0, seed=None, continuous=False,
                 file=None, calibrate=False):
        phase_sigma = _nonnegative(phase_sigma, "phase_sigma", "radians")
        seed = None if seed is None else _seed(seed)
        if file is not None and (programmed or phase_sigma or continuous):
            raise ValueError("a chip file gives the whole device model: leave out programmed, "
                             "phase_sigma and continuous (put phase_error_sigma_rad in the file)")
        if calibrate and file is None:
            raise ValueError("calibrate recompiles a chip from its measurement: give the chip "
                             "file with file=")
        self.programmed = bool(programmed or phase_sigma > 0 or continuous)
        self.phase_sigma, self.seed, self.continuous = phase_sigma, seed, continuous
        self.file, self.calibrate = file, bool(calibrate)
        if file is None:
            self._own(None, None)       # no C object: closing it only ends its use
        else:
            out = ctypes.c_void_p()
            _call(lib.optinc_chip_spec_open, _path(file, "file"), None, ctypes.byref(out))
            self._own(out, lib.optinc_chip_spec_free)

    @classmethod
    def of(cls, chip):
        """A Chip from None or "ideal", "programmed", a dict of the keywords,
        or a Chip."""
        if chip is None or chip == "ideal":
            return cls()
        if chip == "programmed":
            return cls(programmed=True)
        if isinstance(chip, dict):
            return cls(**chip)
        if isinstance(chip, cls):
            return chip
        raise ValueError("chip %r: use None, \"ideal\", \"programmed\", a dict of "
                         "optinc.Chip's keywords or an optinc.Chip" % (chip,))

    def devices(self, run_seed=0):
        """The library's optinc_onn_devices of this chip: its errors drawn
        from the chip's seed, or from run_seed when it has none.  It points
        into the chip file, so it borrows the chip as a plan its table."""
        spec = self._live()
        ideal = _clib.ONN_CONTINUOUS if self.continuous else int(not self.programmed)
        seed = _seed(run_seed, "run_seed") if self.seed is None else self.seed
        dev = _clib.COnnDevices(ideal, self.phase_sigma, seed)
        if spec is not None:
            lib.optinc_onn_devices_use_chip(ctypes.byref(dev), spec, int(self.calibrate))
            _finalizer(dev, None, None, (self,))
        return dev

    def __reduce__(self):
        # A chip is its settings: unpickling opens its file again.
        return (Chip, (self.programmed, self.phase_sigma, self.seed, self.continuous,
                       self.file, self.calibrate))

    def __repr__(self):
        if self.file is not None:
            return "Chip(file=%r, calibrate=%r, seed=%r)" % (self.file, self.calibrate,
                                                            self.seed)
        return ("Chip(programmed=%r, phase_sigma=%r, seed=%r, continuous=%r)"
                % (self.programmed, self.phase_sigma, self.seed, self.continuous))


Report = collections.namedtuple("Report", "checked correct accuracy weighted_accuracy errors")
Report.__doc__ = """How a chip's ONN table compares with the exact average: points of P's
output space checked and correct, their ratio, the ratio over server inputs, and errors, a
dict {delta in LSBs: count} without the 0 bin (the end bins hold everything beyond)."""


class AggTable(_Owner):
    """The aggregation table of the OptINC unit (optinc_agg_lut): the output
    code of the average for every point of the preprocessing's output space.
    Make one with AggTable.exact() or AggTable.onn()."""

    def __init__(self, ptr, report=None):
        self._own(ptr, lib.optinc_agg_lut_free)
        t = ptr.contents
        self.servers, self.bits, self.size = t.servers, t.bits, t.size
        self.source = t.source.decode("utf-8", "replace")
        self.report = report

    def _describe(self):
        accuracy = "" if self.report is None else " accuracy=%r" % self.report.accuracy
        return "servers=%d bits=%d size=%d source=%r%s" % (self.servers, self.bits, self.size,
                                                          self.source, accuracy)

    @classmethod
    def exact(cls, servers, bits=8):
        """The table of the exact target (what a perfect ONN computes)."""
        out = ctypes.POINTER(_clib.CAggLut)()
        _call(lib.optinc_agg_lut_exact, _servers(servers),
              _bits(bits, _TABLE_BITS, 12), ctypes.byref(out))
        return cls(out)

    # The library's words for a unit that does not fit the run, as a caller
    # of AggTable.onn() gave them.
    _WORDS = {"--servers": "servers=", "--bits": "bits=", "--onn": "path"}

    @classmethod
    def onn(cls, path, servers=4, bits=8, chip=None, seed=0, _words=_WORDS, _what="path"):
        """The table of the ONN at path (a netlist, or a spec compiled when
        loaded; a relative path as _data_path finds it) simulated on chip
        (see Chip.of; its errors drawn from seed unless the chip has its
        own) on every point of P's output space; its accuracy against the
        exact target is in .report.  seed is `optinc onn verify
        --chip-seed`, whose default is 1: seed=1 gives the numbers of a run
        without --chip-seed.  (_words and _what: the arguments' names in
        errors, for a caller that takes them under other names.)"""
        servers, bits = _servers(servers), _bits(bits, _TABLE_BITS, 12)
        path = _data_path(path, _what)
        dev = Chip.of(chip).devices(_seed(seed))
        out, rep = ctypes.POINTER(_clib.CAggLut)(), _clib.COnnReport()
        try:
            with _clib.one_blas_thread():    # the bits of `optinc onn verify`
                _call(lib.optinc_agg_lut_onn, path, None, servers, bits,
                      ctypes.byref(dev), ctypes.byref(out), ctypes.byref(rep))
        except Error as e:
            raise _in_python_words(e, _words) from None
        errors = {k - _clib.ONN_HIST: rep.hist[k] for k in range(2 * _clib.ONN_HIST + 1)
                  if rep.hist[k] and k != _clib.ONN_HIST}
        return cls(out, Report(rep.checked, rep.correct, rep.accuracy, rep.weighted_accuracy,
                               errors))

    def codes(self):
        """The table's output codes, a copy as a list of ints."""
        return self._live().contents.code[:self.size]


class ErrorHistogram(_Owner):
    """Output errors to inject into the aggregation (optinc_err_hist): from a
    histogram file (lines "DELTA COUNT", see optinc-train(1)) or from an
    ONN table's report."""

    def __init__(self, ptr, file=None):
        self._own(ptr, lib.optinc_err_hist_free)
        self.p_error = ptr.contents.p_error
        self.file = file        # the file it was loaded from (None: made from counts)

    def _describe(self):
        return "p_error=%r %s" % (self.p_error, "from counts" if self.file is None
                                  else "file=%r" % self.file)

    def __reduce__(self):
        # A loaded histogram is its file; one made from counts keeps only its
        # cumulative distribution, not counts to make it again from.
        if self.file is None:
            raise TypeError("an optinc.ErrorHistogram made from counts cannot be pickled: "
                            "load it from a histogram file (ErrorHistogram.load), or give "
                            "inject=\"onn\" to a hook state")
        return (ErrorHistogram.load, (self.file,))

    @classmethod
    def load(cls, path):
        out = ctypes.POINTER(_clib.CErrHist)()
        _call(lib.optinc_err_hist_load, _path(path, "path"), None, ctypes.byref(out))
        return cls(out, path)

    @classmethod
    def from_table(cls, table):
        """The errors the chip of an AggTable.onn() table makes, as measured."""
        table._live()       # a closed table is closed to every use
        if table.report is None:
            raise ValueError("the table %s has no measured errors: make it with AggTable.onn()"
                             % table.source)
        counts = (_clib.c_uint64 * (2 * _clib.ONN_HIST + 1))()
        for delta, n in table.report.errors.items():
            counts[delta + _clib.ONN_HIST] = n
        # the 0 bin: every checked point without an error
        counts[_clib.ONN_HIST] = table.report.correct
        out = ctypes.POINTER(_clib.CErrHist)()
        _call(lib.optinc_err_hist_from_counts, counts, len(counts), _clib.ONN_HIST,
              ctypes.byref(out))
        return cls(out)


# ---- buffers ----------------------------------------------------------------

def _address(x, what):
    """(address, length) of a 1-D float32 buffer the library may write."""
    np, torch = sys.modules.get("numpy"), sys.modules.get("torch")
    if np is not None and isinstance(x, np.ndarray):
        if x.dtype != np.float32:
            raise TypeError("%s is a NumPy array of %s: the all-reduce works on float32 "
                            "(native byte order); convert it with .astype(numpy.float32)"
                            % (what, x.dtype))
        if x.ndim != 1 or not x.flags.c_contiguous:
            raise ValueError("%s must be a contiguous 1-D array (shape %s, contiguous %s): "
                             "use numpy.ascontiguousarray(x).ravel()"
                             % (what, x.shape, x.flags.c_contiguous))
        if not x.flags.writeable:
            raise ValueError("%s is read-only: the all-reduce writes its result in place" % what)
        return x.ctypes.data, x.size
    if torch is not None and isinstance(x, torch.Tensor):
        if x.dtype != torch.float32:
            raise TypeError("%s is a torch tensor of %s: the all-reduce works on "
                            "torch.float32; convert it with .float()" % (what, x.dtype))
        if x.device.type != "cpu":
            raise ValueError("%s is on %s: the all-reduce reads CPU memory; use .cpu()"
                             % (what, x.device))
        if x.dim() != 1 or not x.is_contiguous():
            raise ValueError("%s must be a contiguous 1-D tensor (shape %s): use "
                             ".contiguous().view(-1)" % (what, tuple(x.shape)))
        return x.data_ptr(), x.numel()
    raise TypeError("%s is a %s: give a NumPy float32 array or a torch float32 CPU tensor"
                    % (what, type(x).__name__))


def _rows(grads):
    """The servers' buffers: a sequence of 1-D buffers, or the rows of a 2-D one."""
    dim = getattr(grads, "ndim", None)
    if dim == 2:
        return [grads[i] for i in range(grads.shape[0])]
    if dim is not None:
        raise ValueError("the gradients are a %d-D array: give one row per server (2-D) or a "
                         "list of 1-D buffers" % dim)
    return list(grads)


def _disjoint(bufs, n):
    """Refuses two of bufs, (buffer, address, name) of n float32 each, that
    share memory: the all-reduce reads every server's buffer while it writes
    the others in place, so an aliased one would be counted twice and
    overwritten mid-run.  In address order, buffers of one length overlap
    only if two neighbours do."""
    order = sorted(range(len(bufs)), key=lambda i: bufs[i][1])
    for i, j in zip(order, order[1:]):
        if bufs[j][1] < bufs[i][1] + 4 * n:
            i, j = sorted((i, j))
            raise ValueError("%s and %s overlap in memory (one buffer given twice, or "
                             "overlapping views of one): the all-reduce writes each server's "
                             "buffer in place, so give each its own" % (bufs[i][2], bufs[j][2]))


def _pointers(bufs):
    """The addresses of bufs, (buffer, address, name), as the C array."""
    return (ctypes.c_void_p * len(bufs))(*[a for _, a, _ in bufs])


# ---- the plan ----------------------------------------------------------------

Stats = collections.namedtuple("Stats", "servers bytes_sent bytes_received messages "
                                        "injected_errors")
Stats.__doc__ = """Counts of the modelled network, per server (tuples indexed by server),
accumulated over a plan's runs (optinc_ar_stats)."""


class Plan(_Owner):
    """An all-reduce plan (optinc_allreduce_new): made once, run every step.

    algorithm is a name of algorithms() ("ring", "optinc", "exact",
    "quantized"); bits and block_size matter to the quantizing ones; table
    is the AggTable optinc aggregates through (None: the exact table);
    inject an ErrorHistogram, or the path of a histogram file, of output
    errors drawn from the stream of (seed, step, chunk).  error_feedback:
    each server adds the residual of its last quantization (which run()
    keeps in the residuals it is given) to its gradient first;
    stochastic_rounding: servers round up with probability the fraction,
    drawn from (seed, step, server, element).  Both for the quantizing
    algorithms only."""

    def __init__(self, algorithm, servers, bits=8, block_size=1024, table=None, inject=None,
                 seed=0, error_feedback=False, stochastic_rounding=False):
        alg = _find_algorithm(algorithm)
        quantizes = alg.contents.flags & _clib.AR_QUANTIZES
        servers, bits = _servers(servers), _bits(bits, _PLAN_BITS, 16 if quantizes else None)
        block_size, seed = _block_size(block_size), _seed(seed)
        if isinstance(inject, (str, bytes, os.PathLike)):
            inject = ErrorHistogram.load(_path(inject, "inject"))
        if table is not None and not isinstance(table, AggTable):
            raise TypeError("table is a %s: give an optinc.AggTable" % type(table).__name__)
        if inject is not None and not isinstance(inject, ErrorHistogram):
            raise TypeError("inject is a %s: give an optinc.ErrorHistogram or a path"
                            % type(inject).__name__)
        self.table, self.inject = table, inject
        self.algorithm = _algorithm(alg)
        self.servers, self.bits, self.block_size, self.seed = servers, bits, block_size, seed
        self.error_feedback = bool(error_feedback)
        self.stochastic_rounding = bool(stochastic_rounding)
        cfg = _clib.CArConfig(alg, servers, bits, block_size,
                              table._live() if table else None,
                              inject._live() if inject else None, seed, 1,
                              int(self.error_feedback), int(self.stochastic_rounding))
        out = ctypes.c_void_p()
        _call(lib.optinc_allreduce_new, ctypes.byref(cfg), ctypes.byref(out))
        # the C plan borrows the table and the histogram
        self._own(out, lib.optinc_allreduce_free, [x for x in (table, inject) if x])
        self._stats = _clib.CArStats()

    def _describe(self):
        words = [self.algorithm.name, "servers=%d" % self.servers]
        if self.algorithm.quantizes:
            words += ["bits=%d" % self.bits, "block_size=%d" % self.block_size]
        if self.table is not None:
            words.append("table=%r" % self.table.source)
        if self.inject is not None:
            words.append("inject_p_error=%r" % self.inject.p_error)
        words.append("seed=%d" % self.seed)
        words += [w for w in ("error_feedback", "stochastic_rounding") if getattr(self, w)]
        return " ".join(words)

    def _buffers(self, grads, what):
        """The servers' buffers of grads as (buffer, address, name), and
        their common length."""
        rows = _rows(grads)
        if len(rows) != self.servers:
            raise ValueError("%d %s for a plan of %d servers: give one per server"
                             % (len(rows), what, self.servers))
        bufs, n = [], None
        for i, g in enumerate(rows):
            name = "the %s of server %d" % (what[:-1], i)
            a, length = _address(g, name)
            if n is not None and length != n:
                raise ValueError("%s has %d elements, server 0's %d: every server reduces "
                                 "the same length" % (name, length, n))
            bufs.append((g, a, name))
            n = length
        return bufs, n

    def run(self, grads, step=0, residuals=None):
        """All-reduces the servers' gradients in place: grads is a sequence of
        `servers` 1-D float32 buffers of one length (NumPy arrays or torch
        CPU tensors), or a 2-D one with a row per server, no two sharing
        memory (ValueError names them).  On return every buffer holds the
        same average.  step seeds the injected errors and the stochastic
        rounding.  With error feedback, residuals holds each server's
        residual in the same shape (zeros at the start), which the run reads
        and updates; keep one per gradient you reduce.  Returns the number
        of errors injected by this call."""
        ptr = self._live()
        step = _seed(step, "step")
        # bufs and res hold the buffers to the end of the call: those of a
        # generator or a temporary list would be freed under C otherwise
        bufs, n = self._buffers(grads, "gradients")
        res = []
        if self.error_feedback:
            if residuals is None:
                raise ValueError("a plan with error feedback keeps each server's residual: "
                                 "give run() residuals=, zeros shaped like the gradients")
            res, rn = self._buffers(residuals, "residuals")
            if rn != n:
                raise ValueError("the residuals have %d elements, the gradients %d: give "
                                 "one residual per gradient element" % (rn, n))
        _disjoint(bufs + res, n)
        if self.error_feedback:
            lib.optinc_allreduce_set_residuals(ptr, _pointers(res), len(res))
        before = self._stats.injected_errors
        try:
            _call(lib.optinc_allreduce_inproc, ptr, step, _pointers(bufs), n,
                  ctypes.byref(self._stats))
        finally:
            if self.error_feedback:     # the plan keeps no pointer into Python's buffers
                lib.optinc_allreduce_set_residuals(ptr, None, 0)
        return self._stats.injected_errors - before

    @property
    def stats(self):
        """The counts so far (Stats)."""
        self._live()
        s, k = self._stats, self.servers
        return Stats(k, tuple(s.bytes_sent[:k]), tuple(s.bytes_received[:k]),
                     tuple(s.messages[:k]), s.injected_errors)

    def reset_stats(self):
        self._live()
        self._stats = _clib.CArStats()

    def _set_stats(self, stats):
        """Takes the counts of stats (a Stats of as many servers, a restored
        checkpoint's) as its own."""
        self.reset_stats()
        s = self._stats
        s.servers, s.injected_errors = stats.servers, stats.injected_errors
        for field in ("bytes_sent", "bytes_received", "messages"):
            getattr(s, field)[:self.servers] = getattr(stats, field)
