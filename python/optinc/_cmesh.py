"""ctypes declarations of the compiler's and simulator's public API that
optinc.circuit and optinc.decompose call: the spec reader's in-memory entry
point and its resolver, the compiled circuit (circuit.h, mesh.h), the
netlist writer and reader, the exports, the drawings and the chips.

As in _clib, every structure mirrors its header field for field (STRUCTS,
checked by python/tests/test_package.py against the C compiler's layout),
and nothing of the library's arithmetic is repeated: the package fills
arguments, passes pointers and copies results into NumPy arrays.
"""
import ctypes
import os

import numpy as np

from . import _clib
from ._clib import lib, c_int, c_uint, c_double, c_size_t, c_uint64, c_char_p, c_void_p

P = ctypes.POINTER
NAME_MAX, PATH_BYTES, STAGES_MAX, ONN_SEGMENTS_MAX = 64, 1024, 4, 17
STAGE_MESH, STAGE_ATT, STAGE_SPLIT, STAGE_COMBINE = 0, 1, 2, 3
DEV_ALL = (1 << 6) - 1
DRIVE_CODES, DRIVE_TARGETS = 0, 1


class CCmat(ctypes.Structure):          # optinc_cmat (matrix.h)
    _fields_ = [("rows", c_int), ("cols", c_int), ("a", P(c_double))]


class CPhase(ctypes.Structure):         # optinc_phase (mesh.h)
    _fields_ = [("rad", c_double), ("target_rad", c_double), ("code", c_int)]


class CMzi(ctypes.Structure):           # optinc_mzi
    _fields_ = [("mode", c_int), ("column", c_int), ("theta", CPhase), ("phi", CPhase)]


class CMesh(ctypes.Structure):          # optinc_mesh
    _fields_ = [("kind", c_int), ("modes", c_int), ("n_mzi", c_int), ("n_columns", c_int),
                ("mzi", P(CMzi)), ("screen", P(CPhase))]


class CSfLists(ctypes.Structure):       # optinc_sf_lists
    _fields_ = [("mode", P(c_int)), ("theta", P(c_double)), ("phi", P(c_double)),
                ("diagonal", P(c_double)), ("n_first", c_int)]


class CQuantizer(ctypes.Structure):     # optinc_quantizer
    _fields_ = [("bits", c_int), ("lo", c_double), ("hi", c_double)]


class CAtt(ctypes.Structure):           # optinc_att (circuit.h)
    _fields_ = [("t", c_double), ("t_target", c_double), ("att_dB", c_double), ("code", c_int)]


class CStage(ctypes.Structure):         # optinc_stage
    _fields_ = [("kind", c_int), ("tag", ctypes.c_char), ("modes_in", c_int),
                ("modes_out", c_int), ("mesh", P(CMesh)), ("att", P(CAtt)), ("n_att", c_int),
                ("block_in", c_int), ("block_out", c_int), ("fan", c_int), ("block", c_int)]


class _CMziParams(ctypes.Structure):
    _fields_ = [("insertion_loss_dB", c_double), ("phase_error_sigma_rad", c_double),
                ("splitter_error_sigma", c_double)]


class _CShifter(ctypes.Structure):
    _fields_ = [("bits", c_int), ("range_rad", c_double * 2), ("noise_sigma_rad", c_double),
                ("thermal_crosstalk", c_double)]


class _CAttParams(ctypes.Structure):
    _fields_ = [("insertion_loss_dB", c_double), ("max_attenuation_dB", c_double),
                ("bits", c_int)]


class CComponents(ctypes.Structure):    # optinc_components (spec.h)
    _fields_ = [("mzi", _CMziParams), ("phase_shifter", _CShifter),
                ("attenuator", _CAttParams), ("waveguide", c_double * 1),
                ("crossing", c_double * 2), ("detector", c_double * 1)]


class CLayer(ctypes.Structure):         # optinc_layer
    _fields_ = [("name", ctypes.c_char * NAME_MAX), ("rows", c_int), ("cols", c_int),
                ("mesh_kind", c_int), ("attenuators", c_int), ("activation", c_int),
                ("gain", c_double), ("seg_rows", c_int), ("seg_cols", c_int),
                ("pass_through", c_int), ("input_scale", P(c_double)), ("n_stages", c_int),
                ("stage", CStage * STAGES_MAX), ("components", CComponents),
                ("target", P(CCmat)), ("approximation_error", c_double),
                ("reconstruction_error", c_double), ("n_warnings_capped", c_int),
                ("line", c_int), ("column", c_int)]


class CCircuitOnn(ctypes.Structure):    # optinc_circuit_onn
    _fields_ = [("present", c_int), ("servers", c_int), ("gradient_bits", c_int),
                ("preprocessing", ctypes.c_char * 16), ("cascade_fan_in", c_int),
                ("cascade_levels", c_int), ("rounding", ctypes.c_char * 16), ("level", c_int),
                ("code", ctypes.c_char * 16), ("n_segments", c_int),
                ("segments", c_int * (2 * ONN_SEGMENTS_MAX))]


class CCircuit(ctypes.Structure):       # optinc_circuit
    _fields_ = [("name", ctypes.c_char * NAME_MAX), ("spec_path", ctypes.c_char * PATH_BYTES),
                ("spec_sha256", ctypes.c_uint8 * 32), ("seed", c_uint64),
                ("wavelength_um", c_double), ("onn", CCircuitOnn), ("n_layers", c_int),
                ("layers", P(CLayer)), ("warnings", P(c_char_p)), ("n_warnings", c_int)]


LIMIT_COUNT = 4


class CLimits(ctypes.Structure):        # optinc_limits (limits.h)
    _fields_ = [("value", ctypes.c_long * LIMIT_COUNT)]


class CInput(ctypes.Structure):         # optinc_input (text.h)
    _fields_ = [("name", c_char_p), ("data", c_char_p), ("len", c_size_t)]


class CBlob(ctypes.Structure):          # optinc_blob
    _fields_ = [("data", c_void_p), ("len", c_size_t), ("name", ctypes.c_char * PATH_BYTES)]


RESOLVER = ctypes.CFUNCTYPE(c_int, c_void_p, c_char_p, c_char_p, c_size_t, c_char_p, P(CBlob),
                            P(_clib.CError))


class CReadOpts(ctypes.Structure):      # optinc_read_opts
    _fields_ = [("limits", c_void_p), ("resolve", RESOLVER), ("resolve_ctx", c_void_p),
                ("include_path", c_char_p)]


class CNetlistOptions(ctypes.Structure):  # optinc_netlist_options (netlist.h)
    _fields_ = [("flatten", c_int), ("expand_mzi", c_int), ("reproducible", c_int),
                ("limits", c_void_p)]


class CLayout(ctypes.Structure):        # optinc_layout (spec.h)
    _fields_ = [("column_pitch_um", c_double), ("mode_pitch_um", c_double),
                ("mzi_length_um", c_double)]


EXPORT_FN = ctypes.CFUNCTYPE(c_int, P(CCircuit), P(CLayout), c_char_p, P(_clib.CError))


class CExportFormat(ctypes.Structure):  # optinc_export_format (export.h)
    _fields_ = [("name", c_char_p), ("extension", c_char_p), ("summary", c_char_p),
                ("write", EXPORT_FN), ("companions", P(c_char_p)),
                ("stream", c_void_p)]   # the C callers' text stream; not called from Python


class CDrawOptions(ctypes.Structure):   # optinc_draw_options (draw.h)
    _fields_ = [("formats", c_uint), ("force_detail", c_int), ("force_overview", c_int)]


class CChipOptions(ctypes.Structure):   # optinc_chip_options (sim.h)
    _fields_ = [("models", c_uint), ("drive_targets", c_int), ("couplers", c_void_p),
                ("balance_loss", c_int)]


class CEvalOptions(ctypes.Structure):   # optinc_eval_options
    _fields_ = [("precision", c_int), ("detect", c_int), ("reference_phase_rad", c_double),
                ("activation", c_void_p), ("activation_ctx", c_void_p)]


class CFidelity(ctypes.Structure):      # optinc_fidelity
    _fields_ = [("max_abs", c_double), ("rel_frobenius", c_double), ("fidelity", c_double)]


class CMcOptions(ctypes.Structure):     # optinc_mc_options
    _fields_ = [("chips", c_int), ("seed", c_uint64), ("chip", CChipOptions),
                ("calibrate", c_int), ("method", c_int)]


class CMcStats(ctypes.Structure):       # optinc_mc_stats
    _fields_ = [("mean", CFidelity), ("std", CFidelity)]


class CMcResult(ctypes.Structure):      # optinc_mc_result
    _fields_ = [("chips", c_int), ("n_layers", c_int), ("before", P(CMcStats)),
                ("after", P(CMcStats)), ("samples", P(CFidelity))]


STRUCTS = {"optinc_cmat": CCmat, "optinc_phase": CPhase, "optinc_mzi": CMzi,
           "optinc_mesh": CMesh, "optinc_sf_lists": CSfLists, "optinc_quantizer": CQuantizer,
           "optinc_att": CAtt,
           "optinc_stage": CStage, "optinc_components": CComponents, "optinc_layer": CLayer,
           "optinc_circuit_onn": CCircuitOnn, "optinc_circuit": CCircuit,
           "optinc_limits": CLimits, "optinc_input": CInput, "optinc_blob": CBlob, "optinc_read_opts": CReadOpts,
           "optinc_netlist_options": CNetlistOptions, "optinc_layout": CLayout,
           "optinc_export_format": CExportFormat, "optinc_draw_options": CDrawOptions,
           "optinc_chip_options": CChipOptions, "optinc_eval_options": CEvalOptions,
           "optinc_fidelity": CFidelity, "optinc_mc_options": CMcOptions,
           "optinc_mc_stats": CMcStats, "optinc_mc_result": CMcResult}
HEADERS = ["optinc/limits.h", "optinc/circuit.h", "optinc/netlist.h", "optinc/export.h", "optinc/draw.h",
           "optinc/sim.h", "optinc/calibration.h"]

E = P(_clib.CError)
_PROTOTYPES = {
    "optinc_limits_init": (None, [P(CLimits)]),
    "optinc_limits_set": (c_int, [P(CLimits), c_int, c_char_p]),
    "optinc_limit_name": (c_char_p, [c_int]),
    "optinc_spec_parse": (c_int, [P(CInput), P(CReadOpts), P(c_void_p), E]),
    "optinc_spec_free": (None, [c_void_p]),
    "optinc_compile": (c_int, [c_void_p, P(P(CCircuit)), E]),
    "optinc_circuit_free": (None, [P(CCircuit)]),
    "optinc_netlist_write": (c_int, [P(CCircuit), c_char_p, P(CNetlistOptions), E]),
    "optinc_netlist_read": (c_int, [c_char_p, P(CReadOpts), P(P(CCircuit)), E]),
    "optinc_cmat_new": (P(CCmat), [c_int, c_int]),
    "optinc_cmat_free": (None, [P(CCmat)]),
    "optinc_layer_transfer": (P(CCmat), [P(CLayer)]),
    "optinc_layer_apply_gain": (None, [P(CLayer), c_double, P(CCmat)]),
    "optinc_mesh_decompose": (c_int, [P(CCmat), c_int, P(CQuantizer), P(P(CMesh)), E]),
    "optinc_mesh_free": (None, [P(CMesh)]),
    "optinc_cmat_unitary_within": (c_int, [P(CCmat), c_double]),
    "optinc_mesh_sf": (c_int, [P(CCmat), c_int, c_double, c_int, P(CSfLists), E]),
    "optinc_mesh_new": (P(CMesh), [c_int, c_int]),
    "optinc_mesh_matrix": (P(CCmat), [P(CMesh)]),
    "optinc_export_format_find": (P(CExportFormat), [c_char_p]),
    "optinc_drawer_new": (c_int, [c_uint, P(c_void_p), E]),
    "optinc_drawer_free": (None, [c_void_p]),
    "optinc_draw_circuit": (c_int, [c_void_p, P(CCircuit), c_char_p, P(CDrawOptions), E]),
    "optinc_drawer_n_written": (c_int, [c_void_p]),
    "optinc_drawer_written": (c_char_p, [c_void_p, c_int]),
    "optinc_draw_parse_formats": (c_int, [c_char_p, P(c_uint), E]),
    "optinc_chip_options_default": (None, [P(CChipOptions)]),
    "optinc_chip_new": (c_int, [P(CCircuit), P(CChipOptions), c_uint64, P(c_void_p), E]),
    "optinc_chip_free": (None, [c_void_p]),
    "optinc_chip_calibrate": (c_int, [c_void_p, c_void_p, c_int, E]),
    "optinc_chip_eval": (c_int, [c_void_p, P(CCmat), P(P(CCmat)), P(CEvalOptions), E]),
    "optinc_eval_options_default": (None, [P(CEvalOptions)]),
    "optinc_monte_carlo": (c_int, [P(CCircuit), P(CMcOptions), P(P(CMcResult)), E]),
    "optinc_mc_result_free": (None, [P(CMcResult)]),
}
for _name, (_restype, _argtypes) in _PROTOTYPES.items():
    _f = getattr(lib, _name)
    _f.restype, _f.argtypes = _restype, _argtypes

# The C library's allocator, for the blobs a resolver hands the reader
# (which frees them with free(3)).
_libc = ctypes.CDLL(None)
_libc.malloc.restype, _libc.malloc.argtypes = c_void_p, [c_size_t]


def read_opts(resolve=None):
    """The readers' options as the command line sets them: the soft limits
    from the environment (OPTINC_MAX_MODES, ..., optinc-limits(7); a value
    that is not a number in range leaves the default, which the messages
    then print), OPTINC_INCLUDE_PATH, and resolve (None: the file system).
    The limits live as long as the options."""
    lim = CLimits()
    lib.optinc_limits_init(ctypes.byref(lim))
    for k in range(LIMIT_COUNT):
        value = os.environ.get(lib.optinc_limit_name(k).decode())
        if value is not None:
            lib.optinc_limits_set(ctypes.byref(lim), k, os.fsencode(value))
    include = os.environ.get("OPTINC_INCLUDE_PATH")
    opts = CReadOpts(ctypes.addressof(lim), resolve or RESOLVER(),
                     None, None if include is None else os.fsencode(include))
    opts._keep = lim, resolve
    return opts


def malloc(n):
    p = _libc.malloc(n)
    if not p:
        raise MemoryError("malloc of %d bytes failed" % n)
    return p


def cmat_view(m):
    """The entries of the optinc_cmat *m as a complex128 array that shares
    its memory (valid while m lives)."""
    rows, cols = m.contents.rows, m.contents.cols
    if rows * cols == 0:
        return np.zeros((rows, cols), complex)
    flat = np.ctypeslib.as_array(m.contents.a, (rows * cols * 2,))
    return flat.view(np.complex128).reshape(rows, cols)


def cmat_array(m):
    """A copy of *m as a NumPy array, then m freed (None: out of memory)."""
    if not m:
        raise MemoryError("the library ran out of memory")
    try:
        return cmat_view(m).copy()
    finally:
        lib.optinc_cmat_free(m)


def cmat_from(a, what):
    """A new optinc_cmat holding a (2-D, anything NumPy converts to complex),
    filled in one strided pass: no intermediate copy whatever a's order or
    dtype.  The caller frees it."""
    rows, cols = a.shape
    m = lib.optinc_cmat_new(rows, cols)
    if not m:
        raise MemoryError("%s: no memory for a %d x %d complex matrix" % (what, rows, cols))
    cmat_view(m)[...] = a
    return m
