
import os
"""A small parser for Go composite literals as used in butane's test tables."""
import re, json, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tags import Y, J
from common import COMMON, IGN

TOK = re.compile(r'''
 (?P<ws>\s+|//[^\n]*|/\*.*?\*/)
|(?P<raw>`[^`]*`)
|(?P<str>"(?:[^"\\]|\\.)*")
|(?P<rune>'(?:[^'\\]|\\.)*')
|(?P<num>0[xX][0-9a-fA-F]+|0[oO]?[0-7]+|\d+(?:\.\d+)?)
|(?P<id>[A-Za-z_]\w*)
|(?P<p>:=|\.\.\.|==|!=|&&|\|\||<=|>=|[{}\[\]():,+&*.\-=;!<>%/|^])
''', re.X | re.S)

def tokenize(s):
    out = []
    pos = 0
    while pos < len(s):
        m = TOK.match(s, pos)
        if not m:
            raise SyntaxError("bad token at " + s[pos:pos+40])
        pos = m.end()
        k = m.lastgroup
        if k == "ws":
            continue
        out.append((k, m.group(k)))
    return out

def go_string(tok):
    k, v = tok
    if k == "raw":
        return v[1:-1]
    # Go interpreted string: handle \xNN as bytes (latin-1 code points), \n, \t, \", \\
    body = v[1:-1]
    res = []
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\":
            n = body[i+1]
            if n == "x":
                res.append(chr(int(body[i+2:i+4], 16))); i += 4; continue
            if n == "u":
                res.append(chr(int(body[i+2:i+6], 16))); i += 6; continue
            res.append({"n": "\n", "t": "\t", "\"": "\"", "\\": "\\", "r": "\r", "'": "'", "0": "\0"}[n]); i += 2; continue
        res.append(c); i += 1
    return "".join(res)

class Struct:
    def __init__(self, typ, fields):
        self.typ = typ; self.fields = fields  # list of (name|None, value)
    def __repr__(self):
        return f"Struct({self.typ}, {self.fields})"

class Ptr:
    def __init__(self, v): self.v = v

class GzipURL:
    def __init__(self, data): self.data = data
    def __repr__(self): return f"GzipURL({len(self.data)})"

class ErrVal:
    def __init__(self, msg): self.msg = msg
    def __repr__(self): return f"Err({self.msg!r})"

class Path:
    def __init__(self, parts): self.parts = parts
    def __repr__(self): return "$." + ".".join(map(str, self.parts[1:]))
    def dollar(self):
        return "$" + "".join("." + str(p) for p in self.parts[1:])

class Parser:
    def __init__(self, text, env=None):
        self.t = tokenize(text); self.i = 0; self.env = env if env is not None else {}
    def peek(self, o=0):
        return self.t[self.i+o] if self.i+o < len(self.t) else (None, None)
    def next(self):
        tok = self.t[self.i]; self.i += 1; return tok
    def expect(self, v):
        tok = self.next()
        if tok[1] != v:
            raise SyntaxError(f"expected {v} got {tok} near {self.t[self.i-5:self.i+5]}")
        return tok
    def qualident(self):
        name = self.next()[1]
        while self.peek()[1] == "." and self.peek(1)[0] == "id":
            self.next(); name += "." + self.next()[1]
        return name
    def typ(self):
        # parses a type expression, returns string
        k, v = self.peek()
        if v == "[":
            self.next(); self.expect("]"); return "[]" + self.typ()
        if v == "*":
            self.next(); return "*" + self.typ()
        if v == "map":
            self.next(); self.expect("["); kt = self.typ(); self.expect("]"); return f"map[{kt}]" + self.typ()
        if v == "struct":
            # anonymous struct type: skip balanced braces
            self.next(); self.expect("{"); depth = 1
            while depth:
                t = self.next()[1]
                depth += (t == "{") - (t == "}")
            return "struct"
        return self.qualident()
    def expr(self):
        v = self.unary()
        while self.peek()[1] == "+":
            self.next(); r = self.unary()
            v = v + r
        return v
    def unary(self):
        k, v = self.peek()
        if v == "&":
            self.next(); return self.unary()
        if v == "-" :
            self.next(); return -self.unary()
        return self.primary()
    def composite(self, typ):
        self.expect("{")
        elems = []
        elemtyp = typ[2:] if typ.startswith("[]") else None
        while self.peek()[1] != "}":
            if self.peek()[1] == "{":
                et = elemtyp or (typ.split("]", 1)[1] if typ.startswith("map[") else "?")
                val = self.composite(et)
                elems.append((None, val))
            else:
                save = self.i
                # key: value ?
                if self.peek()[0] == "id" and self.peek(1)[1] == ":" and not typ.startswith("map["):
                    key = self.next()[1]; self.next()
                    if self.peek()[1] == "{":
                        val = self.composite("?")
                    else:
                        val = self.expr()
                    elems.append((key, val))
                else:
                    k = self.expr()
                    if self.peek()[1] == ":":
                        self.next()
                        if self.peek()[1] == "{":
                            val = self.composite(typ.split("]", 1)[1] if typ.startswith("map[") else "?")
                        else:
                            val = self.expr()
                        elems.append((("mapkey", k), val))
                    else:
                        elems.append((None, k))
            if self.peek()[1] == ",":
                self.next()
        self.expect("}")
        if typ.startswith("[]"):
            return [v for _, v in elems]
        if typ.startswith("map[") or any(isinstance(k, tuple) for k, _ in elems):
            return {k[1]: v for k, v in elems}
        if typ in NAMED_SLICES:
            return [v for _, v in elems]
        return Struct(typ, elems)
    def primary(self):
        k, v = self.peek()
        if k in ("str", "raw"):
            self.next(); return go_string((k, v))
        if k == "num":
            self.next()
            if re.match(r"^0[oO]?[0-7]+$", v) and v != "0":
                return int(v.replace("o", "").replace("O", ""), 8)
            return int(v, 0) if not "." in v else float(v)
        if v == "(":
            self.next(); e = self.expr(); self.expect(")"); return e
        if v in ("[", "map"):
            t = self.typ()
            if self.peek()[1] == "(":  # conversion like []byte("x")
                self.next(); e = self.expr(); self.expect(")"); return e
            return self.composite(t)
        if k == "id":
            name = self.qualident()
            if name in ("true", "false"):
                return name == "true"
            if name == "nil":
                return None
            nk, nv = self.peek()
            if nv == "(":
                self.next()
                args = []
                while self.peek()[1] != ")":
                    args.append(self.expr())
                    if self.peek()[1] == ",": self.next()
                self.expect(")")
                # trailing method call like .Error()
                while self.peek()[1] == "." and self.peek(1)[0] == "id":
                    self.next(); meth = self.next()[1]; self.expect("("); self.expect(")")
                    if meth == "Error":
                        args = [args[0].msg if isinstance(args[0], ErrVal) else args[0]]
                        name = "__id"
                return call(name, args)
            if nv == "{" and not name in self.env:
                return self.composite(name)
            # identifier value, maybe with .Error()
            val = resolve(name, self.env)
            while self.peek()[1] == "." and self.peek(1)[0] == "id":
                self.next(); meth = self.next()[1]; self.expect("("); self.expect(")")
                if meth == "Error": val = val.msg
            return val
        raise SyntaxError(f"unexpected {k} {v} near {self.t[self.i-5:self.i+5]}")

NAMED_SLICES = {"base.HTTPHeaders", "types.HTTPHeaders", "HTTPHeaders"}

CONSTS = {"ROLE_LABEL_KEY": "machineconfiguration.openshift.io/role",
          "result.MC_API_VERSION": "machineconfiguration.openshift.io/v1", "result.MC_KIND": "MachineConfig",
          "reservedTypeGuid": "8DA63339-0007-60C0-C436-083AC8230908", "biosTypeGuid": "21686148-6449-6E6F-744E-656564454649",
          "prepTypeGuid": "9E1A2D38-C612-4316-AA26-8B49521E5A8B", "espTypeGuid": "C12A7328-F81F-11D2-BA4B-00A0C93EC93B",
          "reservedV1SizeMiB": 1, "biosV1SizeMiB": 1, "prepV1SizeMiB": 4, "espV1SizeMiB": 127, "bootV1SizeMiB": 384,
          "report.Error": "error", "report.Warn": "warning", "report.Info": "info"}

def resolve(name, env):
    if name in env: return env[name]
    if name in CONSTS: return CONSTS[name]
    m = re.match(r'(common|errors)\.(Err\w+)$', name)
    if m:
        return ErrVal((COMMON if m.group(1) == "common" else IGN)[m.group(2)])
    raise NameError(name)

def call(name, args):
    if name.endswith(".Error") and not args:
        v = resolve(name[:-6], {})
        return v.msg
    short = name.split(".")[-1]
    if short in ("StrToPtr", "IntToPtr", "BoolToPtr", "StrP", "IntP", "BoolP") or name.startswith("util."):
        return args[0]
    if name == "__id":
        return args[0]
    if name == "path.New":
        return Path(args)
    if name in ("string", "types.LuksOption", "base.LuksOption", "types.Device", "base.Device", "types.KernelArgument",
                "base.KernelArgument", "types.SSHAuthorizedKey", "base.SSHAuthorizedKey", "types.Group", "base.Group") or short in ("LuksOption", "KernelArgument", "SSHAuthorizedKey", "Device", "Group", "Unit"):
        return args[0]
    if name == "errors.New":
        return ErrVal(args[0])
    if name == "fmt.Sprintf":
        fmtstr = args[0]
        vals = list(args[1:])
        def rep(m):
            v = vals.pop(0)
            if m.group(0) == "%q": return json.dumps(v)
            if isinstance(v, ErrVal): return v.msg
            return str(v)
        return re.sub(r"%[vsdq]", rep, fmtstr)
    if name == "baseutil.CompressDataURL":
        return ("compress", args[1])
    if name == "filepath.Join":
        parts = ["%FilesDir%" if isinstance(a, Opaque) else a for a in args]
        return "/".join(parts)
    if name == "string" or name == "byte":
        return args[0]
    if name == "strings.Repeat":
        return args[0] * args[1]
    pre = name.rsplit(".", 1)[0] if "." in name else ""
    if len(args) == 1 and short[:1].isupper() and pre in ("", "types", "base", "fcos"):
        return args[0]  # type conversion
    raise NameError("call " + name)

def snake_ok(d):
    return d

# ---------- conversion to YAML-ish Python data and JSON ----------
EMBEDDED = {"Node", "FileEmbedded1", "DirectoryEmbedded1", "LinkEmbedded1", "Common"}
def is_embedded(field, val):
    if not isinstance(val, Struct):
        return False
    base = val.typ.split(".")[-1]
    return field in EMBEDDED or (field == "Config" and base == "Config" and val.typ != "types.Config")

def to_data(v, side):
    """side: 'yaml' (Butane input) or 'json' (Ignition output). Returns python data with empty values dropped
    the way Butane/Ignition marshal them (nil pointers and empty structs/slices gone)."""
    tags = Y if side == "yaml" else J
    if isinstance(v, Struct):
        out = {}
        for k, val in v.fields:
            if k is None:
                raise ValueError("positional struct fields unsupported: " + v.typ)
            if is_embedded(k, val):
                inner = to_data(val, side)
                if inner: out.update(inner)
                continue
            if k not in tags:
                raise KeyError(f"{side} tag unknown for field {k} of {v.typ}")
            (tag,) = tags[k]
            if tag == "<inline>":
                inner = to_data(val, side)
                if inner: out.update(inner)
                continue
            d = to_data(val, side)
            out[tag] = d
        return prune(out, side)
    if isinstance(v, list):
        return [to_data(x, side) for x in v]
    if isinstance(v, dict):
        return {k: to_data(x, side) for k, x in v.items()}
    if isinstance(v, Opaque):
        raise ValueError("unresolved value " + v.name)
    if isinstance(v, tuple) and v[0] == "gzip":
        return make_data_url(v[1])[0]
    if isinstance(v, tuple) and v[0] == "gzipcomp":
        return make_data_url(v[1])[1]
    if isinstance(v, tuple):
        raise ValueError("unsupported value " + repr(v)[:80])
    return v

EMPTY = object()
def prune(d, side):
    out = {}
    for k, v in d.items():
        if v is None: continue
        if isinstance(v, dict) and not v: continue
        if side == "json" and isinstance(v, list) and not v: continue
        out[k] = v
    return out

class Opaque:
    def __init__(self, name): self.name = name
    def __repr__(self): return f"Opaque({self.name})"

_orig_resolve = resolve
def resolve(name, env):
    try:
        return _orig_resolve(name, env)
    except NameError:
        return Opaque(name)

def func_body(src, fname):
    i = src.index(f"func {fname}(")
    j = src.index("{", src.index(")", i))
    depth = 0
    for k in range(j, len(src)):
        if src[k] == "{": depth += 1
        elif src[k] == "}":
            depth -= 1
            if depth == 0:
                return src[j+1:k]
    raise ValueError

def tables(src, fname, table_var="tests"):
    """Returns the rows of the `table_var := []struct{...}{...}` table in function fname, as dicts."""
    body = func_body(src, fname)
    p = Parser(body)
    env = p.env
    rows = None
    depth = 0
    while p.i < len(p.t):
        k, v = p.peek()
        if v == "{": depth += 1; p.next(); continue
        if v == "}": depth -= 1; p.next(); continue
        if depth == 0 and v == "const" and p.peek(1)[1] == "(":
            p.i += 2
            while p.peek()[1] != ")":
                nm = p.next()[1]
                p.expect("=")
                env[nm] = p.expr()
            p.next()
            continue
        if depth == 0 and v == "var" and p.peek(1)[0] == "id" and p.peek(2)[1] == "=":
            nm = p.peek(1)[1]; p.i += 3
            try:
                env[nm] = p.expr()
            except Exception:
                env[nm] = Opaque(nm)
            continue
        if depth == 0 and k == "id":
            # assignment?
            j = p.i; names = [p.t[j][1]]; j += 1
            while j + 1 < len(p.t) and p.t[j][1] == "," and p.t[j+1][0] == "id":
                names.append(p.t[j+1][1]); j += 2
            if j < len(p.t) and p.t[j][1] == ":=":
                p.i = j + 1
                if names == [table_var]:
                    t = p.typ()
                    assert t.startswith("[]"), t
                    # field names of the anonymous struct
                    hdr = body[body.index(table_var + " := []struct"):]
                    hdr = hdr[hdr.index("{")+1: hdr.index("}")]
                    fields = [ln.split()[0] for ln in hdr.strip().split("\n") if ln.strip() and not ln.strip().startswith("//")]
                    p.expect("{")
                    rows = []
                    while p.peek()[1] != "}":
                        if p.peek()[1] == "{":
                            s = p.composite("row")
                            if all(k is None for k, _ in s.fields):
                                row = dict(zip(fields, [v for _, v in s.fields]))
                            else:
                                row = {k: v for k, v in s.fields}
                            rows.append(row)
                        if p.peek()[1] == ",": p.next()
                    p.expect("}")
                    return rows, env
                try:
                    val = p.expr()
                except Exception as e:
                    val = Opaque(" ".join(names))
                    continue
                if isinstance(val, tuple) and val[0] == "compress" and len(names) == 2:
                    env[names[0]] = ("gzip", val[1]); env[names[1]] = ("gzipcomp", val[1])
                else:
                    for n in names: env[n] = val
                continue
        p.next()
    raise ValueError(f"no table {table_var} in {fname}")


def report_entries(v):
    """report.Report{Entries: [...]} -> [{kind, path, message}]"""
    if v is None or isinstance(v, str) and v == "":
        return []
    if isinstance(v, Struct):
        d = dict(v.fields)
        ents = d.get("Entries", [])
        out = []
        for e in ents:
            ed = dict(e.fields)
            ent = {"kind": ed["Kind"], "message": ed["Message"]}
            if "Context" in ed:
                ent["path"] = ed["Context"].dollar()
            out.append(ent)
        return out
    raise ValueError(f"unsupported report {v!r}")


UNRESERVED = set(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.!~*'()")
def escape(raw):
    return "".join(chr(b) if b in UNRESERVED else "%%%02X" % b for b in raw)

def make_data_url(content):
    """Butane's MakeDataURL(contents, nil, true): smallest of escaped, base64 and gzip+base64 (gzip from Python's
    zlib at level 9; only the choice and the decoded payload are meaningful, the runner compares gzip URLs decoded)."""
    import gzip, base64
    raw = content.encode("latin-1") if all(ord(c) < 256 for c in content) else content.encode()
    opaque = "," + escape(raw)
    b64 = ";base64," + base64.b64encode(raw).decode()
    if len(b64) < len(opaque):
        opaque = b64
    gz = ";base64," + base64.b64encode(gzip.compress(raw, 9, mtime=0)).decode()
    comp = ""
    if len(gz) + 4 < len(opaque):
        # refuse to guess when Go's deflate could plausibly decide the other way
        if not len(gz) + 4 + 12 < len(opaque):
            raise ValueError("gzip choice too close to call")
        opaque = gz; comp = "gzip"
    elif len(gz) + 4 - 12 < len(opaque):
        raise ValueError("gzip choice too close to call (plain chosen)")
    return "data:" + opaque, comp
