import os, sys, json, yaml, re
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *
from golit import *

IGNV = {8: "3.7.0-experimental", 0: "3.0.0", 1: "3.1.0", 2: "3.2.0", 3: "3.2.0", 4: "3.3.0", 5: "3.4.0", 6: "3.5.0", 7: "3.6.0"}
BOOT_DISK = "/dev/disk/by-id/coreos-boot-disk"

def ydump(d):
    if not d:
        return ""
    return yaml.safe_dump(d, sort_keys=False, default_flow_style=False, allow_unicode=True, width=1000)

def hdr(v):
    return f"variant: fcos\nversion: {fcos_ver(v)}\n"

# --- source-validation warnings of the full pipeline that upstream's translate unit tests do not run ---
def is_typical_mode(mode, directory):
    if mode == 0:
        return True
    perms = [mode & 0o7, (mode & 0o70) >> 3, (mode & 0o700) >> 6]
    hadR = hadW = hadX = False
    for perm in perms:
        r, w, x = perm & 4 != 0, perm & 2 != 0, perm & 1 != 0
        if (not r and hadR) or (not w and hadW) or (not x and hadX):
            return False
        if x and hadR and not hadX:
            return False
        if (w or x) and not r:
            return False
        hadR, hadW, hadX = hadR or r, hadW or w, hadX or x
    if not hadR:
        return False
    if directory:
        if not hadX: return False
        if mode & 0o4000: return False
        if mode & 0o3000 and not hadW: return False
    else:
        if mode & 0o6000:
            if not hadX: return False
            if mode & 2: return False
        if mode & 0o1000: return False
    return True

def decimal_mode_warns(mode, directory):
    if mode < 0 or mode > 7777:
        return False
    ret = 0
    for div in (1000, 100, 10, 1):
        dgt = (mode // div) % 10
        if dgt > 7:
            return False
        ret = (ret << 3) | dgt
    return (not is_typical_mode(mode, directory)) and is_typical_mode(ret, directory)

def source_warnings(v, y):
    """Warnings that fcos 1.v's source validation adds for Butane data y (rules read from base/v0_*/validate.go and
    config/fcos/v1_*/validate.go)."""
    out = []
    st = y.get("storage", {})
    for kind, directory in (("files", False), ("directories", True)):
        for i, n in enumerate(st.get(kind, [])):
            if "mode" in n and decimal_mode_warns(n["mode"], directory):
                out.append(E("warning", f"$.storage.{kind}.{i}.mode", COMMON["ErrDecimalMode"]))
    for i, t in enumerate(st.get("trees", []) or []):
        if not t.get("local"):
            out.append(E("error", f"$.storage.trees.{i}", COMMON["ErrTreeNoLocal"]))
    bd = y.get("boot_device", {})
    mirror = bd.get("mirror", {}).get("devices", [])
    if v >= 3 and mirror and "layout" not in bd:
        # a warning up to fcos 1.6, an error from 1.7 (config/fcos/v1_*/validate.go)
        out.append(E("error" if v >= 7 else "warning", "$.boot_device.mirror", COMMON["ErrMirrorRequiresLayout"]))
    if v >= 6:
        for i, disk in enumerate(st.get("disks", [])):
            if disk.get("device") != BOOT_DISK and disk.get("wipe_table") is not True and disk.get("device") not in mirror:
                for p, part in enumerate(disk.get("partitions", [])):
                    if part.get("number", 0) == 0 and "label" in part:
                        out.append(E("warning", f"$.storage.disks.{i}.partitions.{p}.number", COMMON["ErrReuseByLabel"]))
    return out

def key(e):
    return (e["kind"], e.get("path"), e["message"])

def merge_reports(upstream, extra):
    have = {key(e) for e in upstream}
    return upstream + [e for e in extra if key(e) not in have], [e for e in extra if key(e) not in have]

def translate_vectors(v):
    f = f"config/fcos/{fcos_dir(v)}/translate_test.go"
    src = open(f"{BT}/{f}").read()
    V = f"{fcos_ver(v)}"
    out = []
    funcs = [fn for fn in ("TestTranslateConfig", "TestTranslateBootDevice", "TestTranslateGrub", "TestRootPartitionConstraints")
             if f"func {fn}(" in src]
    for fn in funcs:
        rows, env = tables(src, fn)
        for i, row in enumerate(rows):
            y = to_data(row["in"], "yaml")
            rep = report_entries(row.get("report"))
            src_entries = source_warnings(v, y)
            extra_rep, added = merge_reports(rep, src_entries)
            name = row.get("name") or f"translate {i}"
            if any(e["kind"] == "error" for e in src_entries):
                # the source validation fails: the pipeline stops before translating
                vv = vec(f"fcos {V} {fn} {name}", f, f"{fn}/{name}", "fcos", V, hdr(v) + ydump(y), src_entries,
                         note="full pipeline: the source validation (not run by upstream's unit test, which calls the translator "
                              "alone) reports " + "; ".join(f"{e['kind']} {e['path']}: {e['message']}" for e in src_entries) +
                              ", which stops the pipeline before translation, so no output is expected")
                out.append(vv)
                continue
            vv = vec(f"fcos {V} {fn} {name}", f, f"{fn}/{name}", "fcos", V, hdr(v) + ydump(y), extra_rep)
            if "out" in row:
                vv["expected"]["config"] = to_data(row["out"], "json")
            else:
                # report-only upstream test: other entries may follow from the full pipeline
                vv["expected"]["reportMatch"] = "contains"
            if added:
                vv["note"] = "full pipeline: source validation (not run by upstream's unit test) adds " + "; ".join(
                    f"{e['kind']} {e['path']}: {e['message']}" for e in added)
            out.append(vv)
    return f, out

def correlation(v, f, src):
    V = f"{fcos_ver(v)}"
    sec = func_body(src, "TestReportCorrelation")
    cases = re.findall(r'\{\s*`((?:[^`])*)`,\s*([^\n]+?),\s*(\d+),\s*(?://[^\n]*)?\s*\}', sec)
    kinds = {
        "unused key q": ("warning", "$.storage.files.0.q"),
        COMMON["ErrTooManyResourceSources"]: ("error", "$.storage.files.0.contents.source" if v > 0 else None),
        COMMON["ErrDecimalMode"]: ("warning", "$.storage.files.0.mode"),
        COMMON["ErrNoFilesDir"]: ("error", "$.storage.files.0.contents.local"),
        IGN["ErrPathRelative"]: ("error", "$.storage.files.0.path"),
        IGN["ErrNeedLabelOrNumber"]: ("error", "$.storage.disks.0.partitions.0"),
        IGN["ErrZeroesWithShouldNotExist"]: ("error", "$.storage.disks.0.partitions"),
        IGN["ErrDuplicate"]: ("error", "$.storage.files.1"),
    }
    out = []
    for i, (text, m, line) in enumerate(cases):
        m = msg(m)
        kind, p = kinds[m]
        inp = text.rstrip("\n") + "\n" + hdr(v)
        out.append(vec(f"fcos {V} report correlation {i} ({m})", f, f"TestReportCorrelation/validate {i}", "fcos", V, inp,
                       [E(kind, p, m, line=int(line))],
                       note="upstream asserts exactly one entry, its message and its line; input kept as upstream wrote it, "
                            "variant/version appended after it; kind and path (where given) follow from the upstream code that emits it"))
        if kind == "warning":
            out.append(vec(f"fcos {V} report correlation {i} ({m}) strict", f, f"TestReportCorrelation/validate {i}", "fcos", V, inp,
                           [E(kind, p, m, line=int(line))], options={"strict": True}, note="derived from the case above: upstream's CLI with --strict fails when the report has any entry (internal/main.go); the report is the same"))
    return out

def err_of(row):
    o = row.get("out")
    if isinstance(o, ErrVal):
        return o.msg
    return None

def validate_vectors(v):
    f = f"config/fcos/{fcos_dir(v)}/validate_test.go"
    src = open(f"{BT}/{f}").read()
    V = f"{fcos_ver(v)}"
    out = correlation(v, f, src)
    # sub-struct validations, wrapped into a config at the key upstream's struct lives under
    wraps = [("TestValidateBootDevice", "tests", lambda d: {"boot_device": d}, "$.boot_device", "error"),
             ("TestValidateBootDevice", "warningTests", lambda d: {"boot_device": d}, "$.boot_device", "warning"),
             ("TestValidateGrubUser", "tests", lambda d: {"grub": {"users": [d]}}, "$.grub.users.0", "error"),
             ("TestValidateMountPoints", "tests", lambda d: d, "$", "error"),
             ("TestValidateConfig", "tests", lambda d: d, "$", "warning")]
    for fn, tv, wrap, prefix, kind in wraps:
        if f"func {fn}(" not in src or (tv != "tests" and f"{tv} := []struct" not in func_body(src, fn)):
            continue
        rows, env = tables(src, fn, tv)
        for i, row in enumerate(rows):
            m = err_of(row)
            if m is None:
                continue  # no-error rows are only meaningful for the stage alone; translate vectors cover valid configs
            y = wrap(to_data(row["in"], "yaml"))
            p = row["errPath"].dollar()
            p = prefix + p[1:] if prefix != "$" else p
            exact = fn in ("TestValidateBootDevice", "TestValidateGrubUser") and kind == "error"
            e = [E(kind, p, m)]
            extra = [w for w in source_warnings(v, y) if key(w) != key(e[0])]
            tname = f"{fn}/validate {'warning ' if tv != 'tests' else ''}{i}"
            vv = vec(f"fcos {V} {tname}", f, tname, "fcos", V, hdr(v) + ydump(y), e + (extra if exact else []),
                     match="exact" if exact else "contains")
            if exact:
                vv["note"] = "upstream validates the struct alone; wrapped under its config key, the source-validation error stops the pipeline, so this is the whole report"
            else:
                vv["note"] = "upstream runs the source validation alone; the full pipeline may add entries from later stages"
            out.append(vv)
    return f, out

if __name__ == '__main__':
  for v in range(0, 9):
    f, vs = translate_vectors(v)
    write(f"fcos-{fcos_dir(v)}-translate_test.json", f, vs)
    f, vs = validate_vectors(v)
    write(f"fcos-{fcos_dir(v)}-validate_test.json", f, vs)
