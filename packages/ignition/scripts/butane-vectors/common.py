import os
import re, json, os
REV = "cb34e120e5267bfd5bdfa83fa8c2e44e06dedda2"
BT = os.environ.get("BUTANE_SRC", "/tmp/bt")
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "test", "fixtures", "upstream", "butane")

def load_errs(path):
    t = open(path).read()
    d = {}
    for m in re.finditer(r'(Err\w+)\s*=\s*errors\.New\("((?:[^"\\]|\\.)*)"\)', t):
        d[m.group(1)] = json.loads('"' + m.group(2) + '"')
    return d
COMMON = load_errs(BT + "/config/common/errors.go")
IGN = load_errs(BT + "/vendor/github.com/coreos/ignition/v2/config/shared/errors/errors.go")

def msg(expr):
    """Resolve a Go error expression like common.ErrX or errors.ErrX(.Error())."""
    expr = expr.strip()
    if expr.startswith('"'):
        return json.loads(expr)
    m = re.match(r'(common|errors)\.(Err\w+)(\.Error\(\))?$', expr)
    if not m:
        raise ValueError("unresolved error expr " + expr)
    return (COMMON if m.group(1) == "common" else IGN)[m.group(2)]

def dedent(s):
    lines = s.split("\n")
    ind = min((len(l) - len(l.lstrip(" ")) for l in lines if l.strip()), default=0)
    return "\n".join(l[ind:] for l in lines)

def write(name, upstream_file, vectors):
    os.makedirs(OUT, exist_ok=True)
    doc = {"upstream": {"repo": "coreos/butane", "revision": REV, "file": upstream_file, "license": "Apache-2.0"},
           "vectors": vectors}
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(doc, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print(name, len(vectors))

def E(kind, path, message, **kw):
    e = {"kind": kind}
    if path is not None:
        e["path"] = path
    e["message"] = message
    e.update(kw)
    return e

def vec(name, file, test, variant, version, input, expected_report, config=None, options=None, match="exact", note=None):
    options = dict(options or {})
    if version.endswith("-experimental"):
        options["experimental"] = True  # experimental versions are only translated on request
    v = {"name": name, "source": {"file": file, "test": test}, "variant": variant, "version": version,
         "input": input, "options": options, "expected": {}}
    if config is not None:
        v["expected"]["config"] = config
    v["expected"]["report"] = expected_report
    v["expected"]["reportMatch"] = match
    if note:
        v["note"] = note
    return v


def fcos_ver(v):
    return "1.8.0-experimental" if v == 8 else f"1.{v}.0"

def fcos_dir(v):
    return "v1_8_exp" if v == 8 else f"v1_{v}"

def base_dir(b):
    return "v0_8_exp" if b == 8 else f"v0_{b}"

def os_ver(v):
    return "4.23.0-experimental" if v == 23 else f"4.{v}.0"

def os_dir(v):
    return "v4_23_exp" if v == 23 else f"v4_{v}"
