"""An independent reader of PNL netlists, written only from the reading
algorithm of optinc-netlist(5) (READING THE CIRCUIT, Matrices), so that the
page is shown to be enough: it flattens the top instance, fuses expanded
MZIs, walks the layers the header lists and multiplies the cards' matrices.

read(path) returns a Circuit with, per layer, its gain, its programmed matrix
T and its target matrix T_target, and the count of capped attenuators; it
raises ValueError for what the page calls an error (not every one of them:
this reader checks what it needs to rebuild the matrices)."""
import math
import os
import re

import numpy as np

NUMBER = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?\Z")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
PINS = {"mzi": ("in0", "in1", "out0", "out1"), "ps": ("in", "out"), "att": ("in", "out"),
        "dc": ("in0", "in1", "out0", "out1"), "term": ("in",), "split": ("in", "out0", "out1"),
        "comb": ("in0", "in1", "out"), "thru": ("in", "out")}
OUT_PINS = {"out", "out0", "out1"}      # sources; every other card pin is a sink
PLANS = {"middle": "VSU", "none": "U", "input": "SU", "output": "US"}


class Layer:
    def __init__(self, name, keys):
        self.name = name
        self.rows = int(keys["rows"])
        self.cols = int(keys["cols"])
        self.gain = float(keys["gain"])
        self.attenuators = keys.get("attenuators", "middle")
        self.approximation_error = float(keys.get("approximation_error", "0"))
        self.attenuators_capped = int(keys.get("attenuators_capped", "0"))
        self.sections = {}
        self.K = 0                          # pass-through carriers (Segmented layers)
        self.T = self.T_target = None
        self.capped = 0

    def section(self, name, key, default):
        return float(self.sections.get(name, {}).get(key, default))


class Circuit:
    def __init__(self, layers):
        self.layers = layers

    def matrix(self, target=False):
        """g_n T_n ... g_1 T_1, the matrix of the whole circuit."""
        P = np.eye(self.layers[0].cols, dtype=complex)
        for L in self.layers:
            g = np.full(L.rows, L.gain)
            g[L.rows - L.K:] = 1            # [g.T' 0; 0 I]: the carriers get no gain
            P = g[:, None] * (L.T_target if target else L.T) @ P
        return P


class Card:
    def __init__(self, kind, nets, params, name):
        self.kind, self.nets, self.params, self.name = kind, list(nets), params, name
        self.used = False


# ------------------------------------------------------------------- lexing

def tokens(text):
    """Blank-separated tokens; a "quoted string" (with \\-escapes) is part of
    its token."""
    out, cur, i = [], "", 0
    while i < len(text):
        ch = text[i]
        if ch in " \t":
            if cur:
                out.append(cur)
            cur = ""
        elif ch == '"':
            j = i + 1
            while j < len(text) and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            cur += text[i:j + 1]
            i = j
        else:
            cur += ch
        i += 1
    if cur:
        out.append(cur)
    return out


def unquote(s):
    assert s[0] == '"' and s[-1] == '"', s
    body, out, i = s[1:-1], "", 0
    while i < len(body):
        if body[i] == "\\":
            if body[i + 1] == "x":
                out += chr(int(body[i + 2:i + 4], 16))
                i += 4
                continue
            out += body[i + 1]
            i += 2
            continue
        out += body[i]
        i += 1
    return out


def lex(path, statements, headers, depth=0):
    """Statements (token lists) and header lines (key, rest) of path and its
    includes, in reading order."""
    if depth > 16:
        raise ValueError("includes nest too deep")
    with open(path, "rb") as f:
        data = f.read()
    if b"\0" in data:
        raise ValueError("NUL byte")
    text = data.decode("utf-8")
    if text.startswith("\ufeff"):
        text = text[1:]
    pending = None
    for line in text.split("\n"):
        if line.endswith("\r"):
            line = line[:-1]
        if not line.strip(" \t"):
            continue
        if line[0] == "*":
            m = re.match(r"\*![ \t]*([^ \t=]+)[ \t]*=(.*)\Z", line)
            if m:
                headers.append((m.group(1), m.group(2)))
            continue
        if line[0] == "+":
            if pending is None:
                raise ValueError("continuation without a statement")
            pending.extend(tokens(line[1:]))
            continue
        pending = tokens(line)
        if pending[0].lower() == ".include":
            inc = unquote(pending[1])
            lex(os.path.join(os.path.dirname(path), inc), statements, headers, depth + 1)
            pending = None
            continue
        statements.append(pending)


def split(tok):
    if "=" not in tok:
        return None
    k, v = tok.split("=", 1)
    if not k or not v:
        raise ValueError("blank beside '=' in %r" % tok)
    return k, v


def value(v, *scopes):
    if NUMBER.match(v):
        x = float(v)
        if not math.isfinite(x):
            raise ValueError("number out of range: " + v)
        return x
    if not NAME.match(v):
        raise ValueError("not a number or name: " + v)
    for sc in scopes:
        if v in sc:
            return sc[v]
    raise ValueError("unknown parameter " + v)


# ------------------------------------------------------------------ parsing

class Cell:
    def __init__(self, name, ports, defaults):
        self.name, self.ports, self.defaults, self.instances = name, ports, defaults, []


def parse(statements):
    globals_, cells, cell, top = {}, {}, None, None
    for st in statements:
        head = st[0].lower()
        if head == ".subckt":
            i = 2
            while i < len(st) and split(st[i]) is None:
                i += 1
            defaults = {}
            for t in st[i:]:
                k, v = split(t)
                defaults[k] = value(v, globals_)
            cell = Cell(st[1], st[2:i], defaults)
            cells[cell.name] = cell
        elif head == ".ends":
            cell = None
        elif head == ".param":
            target = cell.defaults if cell else globals_
            for t in st[1:]:
                k, v = split(t)
                if k in target:
                    raise ValueError("parameter %s declared twice" % k)
                target[k] = value(v, globals_)
        elif head == ".end":
            pass
        else:
            m = len(st) - 1
            while split(st[m]) is not None:
                m -= 1
            inst = (st[0], st[1:m], st[m], [split(t) for t in st[m + 1:]])
            if cell is None:
                if top is not None:
                    raise ValueError("two top instance lines")
                top = inst
            else:
                cell.instances.append(inst)
    return globals_, cells, top


# --------------------------------------------------------------- flattening

class Netlist:
    def __init__(self):
        self.cards, self.nnets = [], 0
        self.ends = {}              # net -> [end, ...]; end = (card, pin) or ("port", name)

    def new_net(self):
        self.nnets += 1
        return self.nnets - 1

    def add_end(self, net, end):
        self.ends.setdefault(net, []).append(end)

    def other(self, net, end):
        ends = self.ends[net]
        if len(ends) != 2 or end not in ends:
            raise ValueError("net %d does not have two ends" % net)
        return ends[1] if ends[0] == end else ends[0]


def flatten(cells, globals_, cell, netmap, scope, nl, prefix):
    local = dict(netmap)
    for name, nets, model, params in cell.instances:
        pins = []
        for n in nets:
            if n not in local:
                local[n] = nl.new_net()
            pins.append(local[n])
        if model in PINS:
            if len(pins) != len(PINS[model]):
                raise ValueError("pin count of " + name)
            vals = {k: value(v, scope, globals_) for k, v in params}
            card = Card(model, pins, vals, prefix + name)
            nl.cards.append(card)
            for p, net in enumerate(pins):
                nl.add_end(net, (card, p))
            continue
        sub = cells[model]
        child = dict(sub.defaults)
        for k, v in params:
            if k not in child:
                raise ValueError("unknown parameter %s of cell %s" % (k, model))
            child[k] = value(v, scope, globals_)
        flatten(cells, globals_, sub, dict(zip(sub.ports, pins)), child, nl,
                prefix + name + "__")


def fuse(nl):
    """ps -> dc -> ps -> dc (couplings 0.5) into one mzi card."""
    for A in list(nl.cards):
        if A.kind != "dc" or A.used or A.params["coupling"] != 0.5:
            continue
        P, pp = nl.other(A.nets[0], (A, 0))
        Q, qp = nl.other(A.nets[2], (A, 2))
        B, bp = nl.other(A.nets[3], (A, 3))
        if not (isinstance(P, Card) and P.kind == "ps" and pp == 1 and isinstance(Q, Card)
                and Q.kind == "ps" and qp == 0 and isinstance(B, Card) and B.kind == "dc"
                and bp == 1 and B.params["coupling"] == 0.5
                and nl.other(Q.nets[1], (Q, 1)) == (B, 0)):
            continue
        vals = {}
        for src, angle in ((Q, "theta"), (P, "phi")):
            vals[angle + "_rad"] = src.params["phase_rad"]
            if "phase_target_rad" in src.params:
                vals[angle + "_target_rad"] = src.params["phase_target_rad"]
        M = Card("mzi", [P.nets[0], A.nets[1], B.nets[2], B.nets[3]], vals, P.name)
        for card in (P, Q, A, B):
            card.used = True
        nl.cards = [c for c in nl.cards if c not in (P, Q, A, B)]
        nl.cards.append(M)
        for k, (old, net) in enumerate(zip([(P, 0), (A, 1), (B, 2), (B, 3)], M.nets)):
            nl.ends[net] = [(M, k) if e == old else e for e in nl.ends[net]]


# ------------------------------------------------------------------ walking

def mzi_matrix(theta, phi):
    B = np.array([[1, 1j], [1j, 1]]) / math.sqrt(2)
    return B @ np.diag([np.exp(1j * theta), 1]) @ B @ np.diag([np.exp(1j * phi), 1])


def values(card, key):
    """(programmed, target) of a phase parameter."""
    x = card.params[key + "_rad"]
    return x, card.params.get(key + "_target_rad", x)


def sink_card(nl, net, end, kind, pin=None):
    """The card the net from `end` goes to, which must be `kind`."""
    e = nl.other(net, end)
    if not isinstance(e[0], Card) or e[0].kind != kind or (pin is not None and e[1] != pin):
        raise ValueError("expected a %s card" % kind)
    return e


def walk_mesh(nl, cur, n):
    """cur: per mode (net, end it comes from) or None (unlit)."""
    mesh = {}                               # mzi card -> mode m
    for m, c in enumerate(cur):
        if c is None:
            continue
        card, pin = nl.other(*c)
        if isinstance(card, Card) and card.kind == "mzi" and pin < 2:
            mesh[card] = m - pin
    grow = list(mesh)
    while grow:
        z = grow.pop()
        for p, net in enumerate(z.nets):
            y, q = nl.other(net, (z, p))
            if isinstance(y, Card) and y.kind == "mzi" and y not in mesh:
                mesh[y] = None
                grow.append(y)
    changed = True
    while changed:
        changed = False
        for z in mesh:
            for p, net in enumerate(z.nets):
                y, q = nl.other(net, (z, p))
                if not (isinstance(y, Card) and y in mesh):
                    continue
                # pin p of z and pin q of y are on one mode: m_z + p%2 = m_y + q%2
                if mesh[z] is not None and mesh[y] is None:
                    mesh[y] = mesh[z] + p % 2 - q % 2
                    changed = True
    if any(m is None or m < 0 or m + 1 >= n for m in mesh.values()):
        raise ValueError("an MZI of the mesh has no modes")
    feeders = {}
    for z in mesh:
        feeders[z] = []
        for p in (0, 1):
            y, q = nl.other(z.nets[p], (z, p))
            if isinstance(y, Card) and y in mesh:
                feeders[z].append(y)
            elif isinstance(y, Card) and y.kind == "term":
                y.used = True               # a dark input
    column = {}
    while len(column) < len(mesh):
        progress = False
        for z in mesh:
            if z not in column and all(y in column for y in feeders[z]):
                column[z] = 1 + max([column[y] for y in feeders[z]], default=-1)
                progress = True
        if not progress:
            raise ValueError("a loop of MZIs")
    U = np.eye(n, dtype=complex)
    U_t = np.eye(n, dtype=complex)
    last = list(cur)
    for z in sorted(mesh, key=lambda z: (column[z], mesh[z])):
        m = mesh[z]
        z.used = True
        for M, which in ((U, 0), (U_t, 1)):
            E = mzi_matrix(values(z, "theta")[which], values(z, "phi")[which])
            M[m:m + 2, :] = E @ M[m:m + 2, :]
        last[m] = (z.nets[2], (z, 2))
        last[m + 1] = (z.nets[3], (z, 3))
    screen, screen_t = np.zeros(n), np.zeros(n)
    for m in range(n):
        if last[m] is None:
            raise ValueError("mode %d is unlit at the screen" % m)
        ps, _ = sink_card(nl, *last[m], "ps", 0)
        ps.used = True
        screen[m], screen_t[m] = values(ps, "phase")
        cur[m] = (ps.nets[1], (ps, 1))
    return (np.diag(np.exp(1j * screen)) @ U, np.diag(np.exp(1j * screen_t)) @ U_t)


def walk_att(nl, cur, a, b, L):
    k = min(a, b)
    S = np.zeros((b, a), dtype=complex)
    S_t = np.zeros((b, a), dtype=complex)
    max_db = L.section("attenuator", "max_attenuation_dB", 60)
    for j in range(a):
        card, _ = sink_card(nl, *cur[j], "att" if j < k else "term", 0)
        card.used = True
        if j >= k:
            continue
        t = 10 ** (-card.params["att_dB"] / 20)
        S[j, j] = t
        S_t[j, j] = card.params.get("t_target", t)
        if "t_target" in card.params:
            tt = card.params["t_target"]
            if tt == 0 or -20 * math.log10(tt) > max_db:
                L.capped += 1
        cur[j] = (card.nets[1], (card, 1))
    del cur[k:]
    cur.extend([None] * (b - k))
    return S, S_t


def att_values(L, card):
    """An att card's amplitude and target; counts it as capped (S columns)."""
    t = 10 ** (-card.params["att_dB"] / 20)
    return t, card.params.get("t_target", t)


def walk_split(nl, grid, R, cols, L):
    """Segmented layers, P then T: the chains and their trims."""
    P = np.zeros((R * cols, cols))
    nxt = [None] * (R * cols)
    for x in range(cols):
        run, amp = grid[x], 1.0
        for k in range(R - 1):
            card, _ = sink_card(nl, *run, "split", 0)
            card.used = True
            tap = card.params["tap"]
            nxt[k * cols + x] = (card.nets[1], (card, 1))
            P[k * cols + x, x] = amp * math.sqrt(tap)
            amp *= math.sqrt(1 - tap)
            run = (card.nets[2], (card, 2))
        nxt[(R - 1) * cols + x] = run
        P[(R - 1) * cols + x, x] = amp
    trim, trim_t = np.zeros(R * cols), np.zeros(R * cols)
    for e in range(R * cols):
        card, _ = sink_card(nl, *nxt[e], "att", 0)
        card.used = True
        trim[e], trim_t[e] = att_values(L, card)
        nxt[e] = (card.nets[1], (card, 1))
    grid[:] = nxt
    return np.diag(trim) @ P, np.diag(trim_t) @ P


def walk_blocks(nl, grid, B, bc, br, L):
    """Segmented layers, S: channel k < br of block b from b.bc + k to b.br + k."""
    S = np.zeros((B * br, B * bc))
    S_t = np.zeros((B * br, B * bc))
    max_db = L.section("attenuator", "max_attenuation_dB", 60)
    nxt = [None] * (B * br)
    for i in range(B * bc):
        b, k = divmod(i, bc)
        card, _ = sink_card(nl, *grid[i], "att" if k < br else "term", 0)
        card.used = True
        if k >= br:
            continue
        S[b * br + k, i], S_t[b * br + k, i] = att_values(L, card)
        if "t_target" in card.params:
            tt = card.params["t_target"]
            if tt == 0 or -20 * math.log10(tt) > max_db:
                L.capped += 1
        nxt[b * br + k] = (card.nets[1], (card, 1))
    grid[:] = nxt
    return S, S_t


def walk_combine(nl, grid, G, rows, br):
    """Segmented layers, C: output y adds modes (i.G + j).br + k over j."""
    C = np.zeros((rows, len(grid)))
    out = [None] * rows
    for y in range(rows):
        i, k = divmod(y, br)
        first = i * G * br + k
        run, amp = grid[first], {first: 1.0}
        for j in range(G - 1):
            card, _ = sink_card(nl, *run, "comb", 0)
            src = (i * G + j + 1) * br + k
            if nl.other(*grid[src]) != (card, 1):
                raise ValueError("comb chain of output %d wired out of order" % y)
            card.used = True
            tap = card.params["tap"]
            amp = {m: a * math.sqrt(1 - tap) for m, a in amp.items()}
            amp[src] = math.sqrt(tap)
            run = (card.nets[2], (card, 2))
        out[y] = run
        for m, a in amp.items():
            C[y, m] = a
    grid[:] = out
    return C


def walk_segmented(nl, cur, L):
    """A segmented layer (Segmented layers; READING THE CIRCUIT, step 4)."""
    seg = L.sections["segments"]
    R, G, K = int(seg["rows"]), int(seg["cols"]), int(seg.get("pass_through", 0))
    rows, cols = L.rows - K, L.cols - K
    br, bc, B = rows // R, cols // G, R * G
    L.K = K
    carriers, grid = cur[cols:], cur[:cols]
    scale = L.sections.get("input_scale")
    d = [float(scale["in%d" % x]) for x in range(cols)] if scale else [1.0] * cols
    T = np.diag(d).astype(complex)
    T_t = T.copy()
    if R > 1:
        P, P_t = walk_split(nl, grid, R, cols, L)
        T, T_t = P @ T, P_t @ T_t
    M, M_t = walk_mesh(nl, grid, B * bc)
    S, S_t = walk_blocks(nl, grid, B, bc, br, L)
    T, T_t = S @ M @ T, S_t @ M_t @ T_t
    if G > 1:
        C = walk_combine(nl, grid, G, rows, br)
        T, T_t = C @ T, C @ T_t
    full, full_t = np.zeros((L.rows, L.cols), complex), np.zeros((L.rows, L.cols), complex)
    full[:rows, :cols], full_t[:rows, :cols] = T, T_t
    for k in range(K):
        card, _ = sink_card(nl, *carriers[k], "thru", 0)
        card.used = True
        grid.append((card.nets[1], (card, 1)))
        full[rows + k, cols + k] = full_t[rows + k, cols + k] = 1
    cur[:] = grid
    return full, full_t


def read(path):
    statements, headers = [], []
    lex(path, statements, headers)
    globals_, cells, top = parse(statements)
    top_cell = cells[top[2]]
    nl = Netlist()
    ins = [p for p in top_cell.ports if p.startswith("in")]
    outs = [p for p in top_cell.ports if p.startswith("out")]
    if top_cell.ports != ["in%d" % k for k in range(len(ins))] + \
            ["out%d" % k for k in range(len(outs))]:
        raise ValueError("top ports must be in0.. then out0..")
    netmap = {}
    for p in top_cell.ports:
        netmap[p] = nl.new_net()
        nl.add_end(netmap[p], ("port", p))
    flatten(cells, globals_, top_cell, netmap, dict(top_cell.defaults), nl, "")
    fuse(nl)

    layers, by_name = [], {}
    for key, rest in headers:
        parts = key.split(".")
        if parts[0] != "layer":
            continue
        keys = dict(split(t) for t in tokens(rest))
        if len(parts) == 2:
            by_name[parts[1]] = Layer(parts[1], keys)
            layers.append(by_name[parts[1]])
    for key, rest in headers:
        parts = key.split(".")
        if parts[0] == "layer" and len(parts) == 3:
            by_name[parts[1]].sections[parts[2]] = dict(split(t) for t in tokens(rest))

    cur = [(netmap[p], ("port", p)) for p in ins]
    for L in layers:
        if len(cur) != L.cols:
            raise ValueError("layer %s: %d modes reach it, cols=%d" % (L.name, len(cur), L.cols))
        T = np.eye(L.cols, dtype=complex)
        T_t = np.eye(L.cols, dtype=complex)
        if "segments" in L.sections:
            L.T, L.T_target = walk_segmented(nl, cur, L)
            continue
        for tag in PLANS[L.attenuators]:
            if tag == "S":
                M, M_t = walk_att(nl, cur, L.cols, L.rows, L)
            else:
                M, M_t = walk_mesh(nl, cur, L.cols if tag == "V" else L.rows)
            T, T_t = M @ T, M_t @ T_t
        L.T, L.T_target = T, T_t
    if len(cur) != len(outs):
        raise ValueError("the last layer does not reach the outputs")
    for k, c in enumerate(cur):
        if nl.other(*c) != ("port", "out%d" % k):
            raise ValueError("mode %d does not reach out%d" % (k, k))
    left = [c.name for c in nl.cards if not c.used]
    if left:
        raise ValueError("cards off the light's path: %s" % left[:3])
    return Circuit(layers)
