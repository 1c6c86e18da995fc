"""Compiled photonic circuits on NumPy arrays: optinc.compile() and
optinc.read_netlist() give an immutable Circuit, whose layers are NumPy
tables and which simulates, writes its netlist, exports and draws itself.

compile() does what `optinc compile` does with a spec, without a file: it
hands the library's spec reader (optinc_spec_parse) a spec held in memory
whose matrix `file: W.npy` a resolver serves from memory, so the circuit is
the one the command line compiles from the same matrix, bit for bit.  The
matrix is converted once, in one strided pass straight into the buffer the
reader takes (any dtype NumPy converts, C or Fortran order): the one copy
the library needs, and no other.  optinc-python(7) documents the module.
"""
import collections
import ctypes
import json
import math
import numbers
import operator
import os

import numpy as np

from . import _clib, _cmesh
from ._clib import lib
from ._core import Chip, Error, _Owner, _call, _path, _seed

_NPY_NAME = "W.npy"


def _table(symbol, ctype, end):
    """The entries of a library table (an array of ctype) up to the one
    end() says ends it, read one at a time so nothing past it is read."""
    p = ctypes.cast(ctypes.addressof(ctype.in_dll(lib, symbol)), ctypes.POINTER(ctype))
    out, k = [], 0
    while not end(p[k]):
        out.append(p[k])
        k += 1
    return out


def _words(symbol):
    """A NULL-terminated word list of the library (vocab.c) as a tuple."""
    return tuple(w.decode() for w in _table(symbol, ctypes.c_char_p, lambda w: w is None))


MESHES = _words("optinc_mesh_kind_names")
ATTENUATORS = _words("optinc_att_position_names")

# The default placement grid of the exports (spec.h, OPTINC_LAYOUT_*_UM):
# a circuit compiled here has no layout: table, as a netlist has none.
LAYOUT_DEFAULT = {"column_pitch_um": 250.0, "mode_pitch_um": 127.0, "mzi_length_um": 200.0}


def _word(value, what, words):
    if value not in words:
        raise ValueError("%s %r: use %s" % (what, value, ", ".join(repr(w) for w in words)))
    return value


def _matrix(W, what="W"):
    """W as a 2-D NumPy array of numbers (no copy of an array), and whether
    it is complex."""
    a = np.asarray(W)
    if a.dtype.kind not in "biufc":
        raise TypeError("%s holds %s: give numbers (any NumPy numeric dtype)" % (what, a.dtype))
    if a.ndim != 2 or 0 in a.shape:
        raise ValueError("%s has shape %s: give a 2-D matrix, rows = outputs, columns = "
                         "inputs" % (what, a.shape))
    return a, a.dtype.kind == "c"


def _npy_blob(a, cplx, blob):
    """Fills *blob with a .npy file of a (float64 or complex128, C order) in
    memory malloc'd for the reader, converting a in one pass."""
    rows, cols = a.shape
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d), }" % (
        "<c16" if cplx else "<f8", rows, cols)
    pad = 64 - (10 + len(header) + 1) % 64
    head = b"\x93NUMPY\x01\x00" + (len(header) + pad + 1).to_bytes(2, "little") \
        + (header + " " * pad + "\n").encode()
    n = len(head) + a.size * (16 if cplx else 8)
    p = _cmesh.malloc(n + 1)
    ctypes.memmove(p, head, len(head))
    ctypes.memset(p + n, 0, 1)
    body = (ctypes.c_char * (n - len(head))).from_address(p + len(head))
    np.frombuffer(body, "<c16" if cplx else "<f8").reshape(rows, cols)[...] = a
    blob.data, blob.len = p, n


def _resolver(a, cplx, failure):
    """The resolver of compile()'s spec: W.npy from memory, nothing else."""
    def resolve(ctx, frm, rel, max_bytes, what, out, err):
        try:
            if rel != _NPY_NAME.encode():
                err.contents.message = b"a spec compiled from Python names only " \
                    + _NPY_NAME.encode()
                return _clib.EINPUT
            _npy_blob(a, cplx, out.contents)
            out.contents.name = rel
            return _clib.OK
        except BaseException as e:      # never into C: kept for compile() to raise
            failure.append(e)
            err.contents.message = b"the Python resolver failed"
            return _clib.ERUN
    return _cmesh.RESOLVER(resolve)


def _components(components, bits):
    """The spec's components: table as a dict, with bits as the phase
    shifters' width."""
    if components is None:
        components = {}
    if not isinstance(components, dict):
        raise TypeError("components is a %s: give a dict of the spec's components: table, "
                        "e.g. {\"mzi\": {\"phase_error_sigma_rad\": 0.01}}"
                        % type(components).__name__)
    table = json.loads(json.dumps(components))      # a deep copy, JSON (so YAML) values only
    if bits is not None:
        if isinstance(bits, bool) or not isinstance(bits, numbers.Integral) \
                or not 1 <= bits <= 16:
            raise ValueError("bits %r: give None (continuous phases) or 1 to 16" % (bits,))
        table.setdefault("phase_shifter", {})
        if not isinstance(table["phase_shifter"], dict):
            raise TypeError("components[\"phase_shifter\"] must be a dict")
        table["phase_shifter"]["bits"] = int(bits)
    return table


def _segments(segments):
    if segments is None:
        return ""
    try:
        r, g = (operator.index(x) for x in segments)
    except (TypeError, ValueError):
        raise ValueError("segments %r: give a pair (R, G) of integers, the grid of blocks"
                         % (segments,)) from None
    return ", segments: [%d, %d]" % (r, g)


def compile(W, mesh="clements", attenuators="middle", bits=None, seed=0, segments=None,
            components=None, gain=None, name="circuit"):
    """Compiles the matrix W (rows = outputs, columns = inputs; real or
    complex, any shape) as `optinc compile` compiles a spec with one layer
    of it: mesh "clements" or "reck", the attenuator column's position
    ("middle": SVD, "none": W/gain unitary, "input"/"output": the
    unitary-diagonal form), phases quantized to bits (None: continuous),
    segments (R, G) a segmented layer, components the spec's components:
    table as a dict, gain the electronic gain (None: sigma_max).  Returns a
    Circuit.  A bad argument is a ValueError or TypeError naming it."""
    a, cplx = _matrix(W)
    mesh = _word(mesh, "mesh", MESHES)
    attenuators = _word(attenuators, "attenuators", ATTENUATORS)
    seed = _seed(seed)
    table = _components(components, bits)
    if gain is not None and not (isinstance(gain, numbers.Real) and math.isfinite(gain)
                                 and gain > 0):
        raise ValueError("gain %r: give None or a finite number > 0" % (gain,))
    if not (isinstance(name, str) and name.isidentifier() and name.isascii()
            and len(name) < _cmesh.NAME_MAX):
        raise ValueError("name %r: give an identifier of letters, digits and _ (under 64)"
                         % (name,))
    # one argument a line, so that the reader's line names the argument
    lines = [("", "schema_version: 1"), ("name", "name: %s" % name), ("", "settings:"),
             ("mesh", "  mesh: %s" % mesh), ("attenuators", "  attenuators: %s" % attenuators),
             ("seed", "  seed: %d" % seed),
             ("components", "components: %s" % json.dumps(table)), ("", "matrices:"),
             ("W", "  W: {shape: [%d, %d], dtype: %s, file: %s}"
              % (a.shape[0], a.shape[1], "complex" if cplx else "real", _NPY_NAME)),
             ("", "layers:"),
             ("segments", "  - {name: L1, matrix: W%s%s}" % (
                 _segments(segments), "" if gain is None else ", gain: %r" % float(gain)))]
    text = "\n".join(line for _, line in lines).encode() + b"\n"
    failure = []
    opts = _cmesh.read_opts(_resolver(a, cplx, failure))
    spec, out = ctypes.c_void_p(), ctypes.POINTER(_cmesh.CCircuit)()
    src = _cmesh.CInput(b"optinc.compile", text, len(text))
    try:
        with _clib.one_blas_thread():       # the bits of `optinc compile`
            _call(lib.optinc_spec_parse, ctypes.byref(src), ctypes.byref(opts),
                  ctypes.byref(spec))
            try:
                _call(lib.optinc_compile, spec, ctypes.byref(out))
            finally:
                lib.optinc_spec_free(spec)
    except Error as e:
        if failure:
            raise failure[0]
        arg = lines[e.line - 1][0] if 0 < e.line <= len(lines) else ""
        if arg == "segments":       # the layer's line holds segments and gain
            arg = "gain" if gain is not None and (segments is None or "gain" in e.message) \
                else "segments" if segments is not None else "W"
        raise ValueError("%s: %s" % (arg or "W", e.message)) from None
    return Circuit(out)


def read_netlist(path):
    """The Circuit of the netlist at path (optinc-netlist(5)), as every
    command reads it (the limits and OPTINC_INCLUDE_PATH of the
    environment too); a bad netlist raises optinc.Error with FILE:LINE:COL."""
    out = ctypes.POINTER(_cmesh.CCircuit)()
    _call(lib.optinc_netlist_read, _path(path, "path"), ctypes.byref(_cmesh.read_opts()),
          ctypes.byref(out))
    return Circuit(out)


# ---- the tables --------------------------------------------------------------

Mesh = collections.namedtuple(
    "Mesh", "tag kind modes columns column row theta phi theta_target phi_target "
            "theta_code phi_code screen screen_target screen_code")
Mesh.__doc__ = """One MZI mesh of a layer: tag "V" or "U" (the meshes of W = U.S.V^H), kind
"clements" or "reck", modes and physical columns, then one entry per MZI in propagation
order: column, row (the upper of its two modes), theta (internal) and phi (external) as
programmed, in radians, their decomposed targets, and the drivers' codes (None when the
phases are continuous); and per mode the output screen's phases, targets and codes."""

Attenuators = collections.namedtuple("Attenuators", "tag t t_target att_dB code inputs outputs")
Attenuators.__doc__ = """An attenuator column: per channel the programmed amplitude t, the
decomposed t_target, att_dB, the codes (None when continuous) and the modes it joins."""

Layer = collections.namedtuple("Layer", "name rows cols gain mesh_kind attenuators stages "
                                        "meshes attenuator_columns approximation_error "
                                        "reconstruction_error")
Layer.__doc__ = """A compiled layer, W ~= gain . T: its stages in propagation order (Mesh,
Attenuators, or a ("split"|"combine", fan, block) tuple), the Mesh and Attenuators stages
alone, and max|W - form| / gain of the decomposed form before phases and max|W - gain.T| /
gain from the programmed phases (-1 when read from a netlist, which has no W)."""


def _frozen(a):
    a.flags.writeable = False
    return a


def _phases(arr, n):
    """rad, target_rad, code of n optinc_phase as arrays (code None when -1)."""
    if n == 0:
        e = np.zeros(0)
        return _frozen(e), _frozen(e.copy()), None
    buf = np.ctypeslib.as_array(ctypes.cast(arr, ctypes.POINTER(ctypes.c_uint8)),
                                (n * ctypes.sizeof(_cmesh.CPhase),))
    rec = np.frombuffer(buf.tobytes(), np.dtype({"names": ["rad", "target", "code"],
                                                 "formats": ["<f8", "<f8", "<i4"],
                                                 "offsets": [0, 8, 16],
                                                 "itemsize": ctypes.sizeof(_cmesh.CPhase)}))
    codes = rec["code"].astype(np.int64)
    return (_frozen(rec["rad"].copy()), _frozen(rec["target"].copy()),
            None if (codes < 0).all() else _frozen(codes))


def mesh_table(m, tag=""):
    """The Mesh table of the optinc_mesh m (copies; m may be freed after)."""
    m = m.contents
    n = m.n_mzi
    size = ctypes.sizeof(_cmesh.CMzi)
    raw = np.ctypeslib.as_array(ctypes.cast(m.mzi, ctypes.POINTER(ctypes.c_uint8)),
                                (n * size,)) if n else np.zeros(0, np.uint8)
    rec = np.frombuffer(raw.tobytes(), np.dtype({
        "names": ["mode", "column", "th", "tht", "thc", "ph", "pht", "phc"],
        "formats": ["<i4", "<i4", "<f8", "<f8", "<i4", "<f8", "<f8", "<i4"],
        "offsets": [0, 4, 8, 16, 24, 32, 40, 48], "itemsize": size}))
    code = lambda f: None if n == 0 or (rec[f] < 0).all() else _frozen(rec[f].astype(np.int64))
    screen, screen_target, screen_code = _phases(m.screen, m.modes)
    col = lambda f, t=None: _frozen(rec[f].astype(t) if t else rec[f].copy())
    return Mesh(tag, MESHES[m.kind], m.modes, m.n_columns, col("column", np.int64),
                col("mode", np.int64), col("th"), col("ph"), col("tht"), col("pht"),
                code("thc"), code("phc"), screen, screen_target, screen_code)


def _att_table(s):
    n = s.n_att
    a = [s.att[k] for k in range(n)]
    arr = lambda f, t=float: _frozen(np.array([getattr(x, f) for x in a], t))
    codes = arr("code", np.int64)
    ins, outs = [], []
    for k in range(n):      # optinc_att_channel, in the stage's blocks
        w = min(s.block_in, s.block_out) or 1
        b, kk = divmod(k, w)
        ins.append(b * s.block_in + kk)
        outs.append(b * s.block_out + kk)
    return Attenuators(s.tag.decode(), arr("t"), arr("t_target"), arr("att_dB"),
                       None if n == 0 or (codes < 0).all() else codes,
                       _frozen(np.array(ins, np.int64)), _frozen(np.array(outs, np.int64)))


def _layer_table(L):
    stages = []
    for k in range(L.n_stages):
        s = L.stage[k]
        if s.kind == _cmesh.STAGE_MESH:
            stages.append(mesh_table(s.mesh, s.tag.decode()))
        elif s.kind == _cmesh.STAGE_ATT:
            stages.append(_att_table(s))
        else:
            stages.append(("split" if s.kind == _cmesh.STAGE_SPLIT else "combine",
                           s.fan, s.block))
    return Layer(L.name.decode(), L.rows, L.cols, L.gain, MESHES[L.mesh_kind],
                 ATTENUATORS[L.attenuators], tuple(stages),
                 tuple(s for s in stages if isinstance(s, Mesh)),
                 tuple(s for s in stages if isinstance(s, Attenuators)),
                 L.approximation_error, L.reconstruction_error)


# ---- the circuit -------------------------------------------------------------

Fidelity = collections.namedtuple("Fidelity", "max_abs rel_frobenius fidelity")
MonteCarlo = collections.namedtuple("MonteCarlo", "mean std after_mean after_std samples")
MonteCarlo.__doc__ = """Per layer: the mean and sample standard deviation over the chips of
each chip's T' against the ideal T (Fidelity tuples), the same after calibration (None when
not calibrated), and samples[chip][layer] (Fidelity)."""


class Circuit(_Owner):
    """A compiled circuit (optinc_circuit), immutable: make one with
    optinc.compile() or optinc.read_netlist().  Closed circuits raise
    ValueError on every use, as the package's other objects do."""

    def __init__(self, ptr):
        self._own(ptr, lib.optinc_circuit_free)
        c = ptr.contents
        self.name = c.name.decode()
        self.warnings = tuple(c.warnings[k].decode() for k in range(c.n_warnings))
        self._layers = None

    def _describe(self):
        return "%s layers=%d" % (self.name, len(self.layers) if not self._closed else -1)

    @property
    def layers(self):
        """Each layer's tables (Layer), read-only NumPy arrays."""
        c = self._live().contents
        if self._layers is None:
            self._layers = tuple(_layer_table(c.layers[k]) for k in range(c.n_layers))
        return self._layers

    def _layer_index(self, layer):
        n = self._live().contents.n_layers
        names = [L.name for L in self.layers]
        if isinstance(layer, str) and layer in names:
            return names.index(layer)
        if isinstance(layer, numbers.Integral) and not isinstance(layer, bool) \
                and -n <= layer < n:
            return int(layer) % n
        raise ValueError("layer %r: give an index below %d or one of %s" % (layer, n, names))

    def matrix(self, layer=None):
        """The ideal transfer gain . T rebuilt from the programmed phases
        (complex rows x cols): of one layer, or (layer None) of the whole
        circuit when it has one layer or no activations."""
        c = self._live().contents
        if layer is None and c.n_layers != 1:
            if any(c.layers[k].activation for k in range(c.n_layers)):
                raise ValueError("layer: this circuit has activations between its layers, "
                                 "so no single matrix: give layer=")
            out = None
            for k in range(c.n_layers):
                m = self.matrix(k)
                out = m if out is None else m @ out
            return out
        k = 0 if layer is None else self._layer_index(layer)
        L = ctypes.byref(c.layers[k])
        T = lib.optinc_layer_transfer(L)
        if T:
            lib.optinc_layer_apply_gain(L, c.layers[k].gain, T)
        return _cmesh.cmat_array(T)

    # ---- chips -------------------------------------------------------------

    def _with_components(self, chip, keep):
        """The circuit C reads for chip (Chip): itself, or a shallow copy
        whose layers carry the chip's components (kept alive in keep)."""
        c = self._live()
        if chip.file is None and not chip.phase_sigma:
            return c
        n = c.contents.n_layers
        copy = _cmesh.CCircuit.from_buffer_copy(c.contents)
        layers = (_cmesh.CLayer * n)()
        ctypes.memmove(layers, c.contents.layers, ctypes.sizeof(layers))
        spec = chip._live()
        for L in layers:
            if spec is not None:    # optinc_chip_spec: path[1024], then the components
                L.components = _cmesh.CComponents.from_address(spec.value + _cmesh.PATH_BYTES)
            else:
                L.components.mzi.phase_error_sigma_rad = chip.phase_sigma
        copy.layers = ctypes.cast(layers, ctypes.POINTER(_cmesh.CLayer))
        keep += [copy, layers, chip]
        return ctypes.pointer(copy)

    def _chip_options(self, chip):
        o = _cmesh.CChipOptions()
        lib.optinc_chip_options_default(ctypes.byref(o))
        if chip is None:
            return o, Chip(programmed=True), False
        if isinstance(chip, (str, bytes, os.PathLike)):
            chip = Chip(file=chip)
        if not isinstance(chip, Chip):
            raise TypeError("chip is a %s: give None (the circuit's own components), an "
                            "optinc.Chip or a chip file's path" % type(chip).__name__)
        chip._live()
        if chip.file is None and not chip.phase_sigma:
            o.models = 0            # an ideal or programmed chip: no device errors
        o.drive_targets = _cmesh.DRIVE_TARGETS if (chip.continuous or not chip.programmed) \
            and chip.file is None else _cmesh.DRIVE_CODES
        return o, chip, chip.calibrate

    def simulate(self, x, chip=None, seed=0):
        """The circuit's outputs for the inputs x (cols, or cols x B: one
        column per input vector), on chip drawn with seed: None (the
        circuit's own components table, drivers at their codes), an
        optinc.Chip (Chip(): ideal continuous phases; programmed=True: the
        codes; phase_sigma: static phase errors; file=: a chip file's
        components, calibrate=True to correct its couplers) or a chip
        file's path.  Returns complex outputs of x's shape but rows."""
        a, _ = _matrix(np.asarray(x)[:, None] if np.ndim(x) == 1 else x, "x")
        c = self._live().contents
        if a.shape[0] != c.layers[0].cols:
            raise ValueError("x has %d rows: the circuit has %d inputs"
                             % (a.shape[0], c.layers[0].cols))
        seed = _seed(seed)
        o, chip, calibrate = self._chip_options(chip)
        keep = []
        circ = self._with_components(chip, keep)
        chp, out = ctypes.c_void_p(), ctypes.POINTER(_cmesh.CCmat)()
        m = _cmesh.cmat_from(a, "x")
        try:
            with _clib.one_blas_thread():
                _call(lib.optinc_chip_new, circ, ctypes.byref(o), seed, ctypes.byref(chp))
                if calibrate:
                    _call(lib.optinc_chip_calibrate, chp, None, 0)
                _call(lib.optinc_chip_eval, chp, m, ctypes.byref(out), None)
        finally:
            lib.optinc_chip_free(chp)
            lib.optinc_cmat_free(m)
        y = _cmesh.cmat_array(out)
        return y[:, 0] if np.ndim(x) == 1 else y

    def monte_carlo(self, chips=20, seed=0, chip=None, calibrate=False):
        """`optinc simulate --monte-carlo CHIPS [--calibrate]`: each layer of
        CHIPS chips drawn from seed (with chip's components as simulate()
        takes them) against the ideal layer; calibrate also corrects each
        chip for its couplers ("local" or "refit"; True: "local")."""
        chips = int(chips) if isinstance(chips, numbers.Integral) else chips
        if not isinstance(chips, int) or not 1 <= chips <= 1 << 20:
            raise ValueError("chips %r: give an integer from 1 to 2^20" % (chips,))
        methods = {False: None, True: 0, "local": 0, "refit": 1}
        if calibrate not in methods:
            raise ValueError("calibrate %r: use False, True, \"local\" or \"refit\""
                             % (calibrate,))
        o, chip, _ = self._chip_options(chip)
        keep = []
        circ = self._with_components(chip, keep)
        mo = _cmesh.CMcOptions(chips, _seed(seed), o, int(methods[calibrate] is not None),
                               methods[calibrate] or 0)
        out = ctypes.POINTER(_cmesh.CMcResult)()
        with _clib.one_blas_thread():
            _call(lib.optinc_monte_carlo, circ, ctypes.byref(mo), ctypes.byref(out))
        try:
            r = out.contents
            fid = lambda f: Fidelity(f.max_abs, f.rel_frobenius, f.fidelity)
            per = lambda s: None if not s else tuple(fid(s[k].mean) for k in range(r.n_layers))
            sd = lambda s: None if not s else tuple(fid(s[k].std) for k in range(r.n_layers))
            samples = tuple(tuple(fid(r.samples[i * r.n_layers + k]) for k in range(r.n_layers))
                            for i in range(r.chips))
            return MonteCarlo(per(r.before), sd(r.before), per(r.after), sd(r.after), samples)
        finally:
            lib.optinc_mc_result_free(out)

    # ---- files -------------------------------------------------------------

    _FORMS = {"hierarchical": (0, 0), "flat": (1, 0), "expanded": (0, 1),
              "flat-expanded": (1, 1)}

    def write_netlist(self, path, form="hierarchical", reproducible=True):
        """Writes the netlist (optinc-netlist(5)) to path atomically, as
        `optinc compile -o` does: form "hierarchical", "flat" (--flatten),
        "expanded" (--expand-mzi) or "flat-expanded"; reproducible leaves
        out the time and host header lines (--reproducible)."""
        c = self._live()
        if form not in self._FORMS:
            raise ValueError("form %r: use %s" % (form, ", ".join(map(repr, self._FORMS))))
        flat, expand = self._FORMS[form]
        readers = _cmesh.read_opts()     # the limits of the readers the file is for
        opt = _cmesh.CNetlistOptions(flat, expand, int(bool(reproducible)), readers.limits)
        _call(lib.optinc_netlist_write, c, _path(path, "path"), ctypes.byref(opt))

    def export(self, format, path, layout=None):
        """Writes the circuit as `optinc export --format FORMAT` does (sax,
        gdsfactory, interconnect, gds; optinc-export(1)) to path, with its
        companion files beside it; layout a dict of the spec's layout:
        table (None: its defaults)."""
        c = self._live()
        fmt = lib.optinc_export_format_find(format.encode()) if isinstance(format, str) else None
        if not fmt:
            names = [f.name.decode() for f in _table("optinc_export_formats",
                                                     _cmesh.CExportFormat, lambda f: not f.name)]
            raise ValueError("format %r: use %s" % (format, ", ".join(names)))
        grid = dict(LAYOUT_DEFAULT)
        for key, v in (layout or {}).items():
            if key not in grid:
                raise ValueError("layout: no key %r: use %s" % (key, ", ".join(grid)))
            if not (isinstance(v, numbers.Real) and math.isfinite(v) and v > 0):
                raise ValueError("layout[%r] %r: give a finite number of um > 0" % (key, v))
            grid[key] = float(v)
        if grid["mzi_length_um"] > grid["column_pitch_um"]:
            raise ValueError("layout: mzi_length_um must be at most column_pitch_um")
        lay = _cmesh.CLayout(grid["column_pitch_um"], grid["mode_pitch_um"],
                             grid["mzi_length_um"])
        _call(fmt.contents.write, c, ctypes.byref(lay), _path(path, "path"))

    def draw(self, directory, formats="svg,png", detail=None):
        """Draws every layer into directory as `optinc draw` does
        (optinc-draw(1)): formats a comma-separated list of svg, png, dot;
        detail True for full detail at any size, False for the heat-map
        overview, None for the size thresholds.  Returns the files written."""
        c = self._live()
        mask = ctypes.c_uint()
        if not isinstance(formats, str):
            raise TypeError("formats is a %s: give a list like \"svg,png\""
                            % type(formats).__name__)
        try:
            _call(lib.optinc_draw_parse_formats, formats.encode(), ctypes.byref(mask))
        except Error as e:
            raise ValueError("formats: %s" % e.message) from None
        if detail not in (None, True, False):
            raise ValueError("detail %r: use None, True or False" % (detail,))
        opt = _cmesh.CDrawOptions(mask.value, int(detail is True), int(detail is False))
        d = ctypes.c_void_p()
        _call(lib.optinc_drawer_new, 0, ctypes.byref(d))
        try:
            _call(lib.optinc_draw_circuit, d, c, _path(directory, "directory"),
                  ctypes.byref(opt))
            return [lib.optinc_drawer_written(d, k).decode()
                    for k in range(lib.optinc_drawer_n_written(d))]
        finally:
            lib.optinc_drawer_free(d)
