import os, sys, json, re
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *
import golit
from golit import *
from fcos import ydump, source_warnings, merge_reports, key

import os
DROP = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'dropped.json')))
DROP = {int(k): v for k, v in DROP.items()}
BASE_TO_FCOS = {8: 8, 1: 0, 2: 1, 3: 2, 4: 4, 5: 5, 6: 6, 7: 7}
IGNV = {8: "3.7.0-experimental", 0: "3.0.0", 1: "3.1.0", 2: "3.2.0", 4: "3.3.0", 5: "3.4.0", 6: "3.5.0", 7: "3.6.0"}

def parse_report_string(s, prefix):
    out = []
    for line in s.split("\n"):
        if not line:
            continue
        m = re.match(r"^(error|warning) at (\$[^:]*): (.*)$", line)
        if not m:
            raise ValueError("unparsed report line " + line)
        p = m.group(2)
        p = prefix + p[1:] if prefix != "$" else p
        out.append({"kind": m.group(1), "path": p, "message": m.group(3)})
    return out

def is_opaque(v):
    return isinstance(v, Opaque)

def invalid_inline_configs(y):
    """Paths of resources under ignition.config whose inline text is not JSON."""
    cfg = (y.get("ignition") or {}).get("config") or {}
    res = [(f"$.ignition.config.merge.{i}", r) for i, r in enumerate(cfg.get("merge") or [])]
    if cfg.get("replace"):
        res.append(("$.ignition.config.replace", cfg["replace"]))
    out = []
    for p, r in res:
        if "inline" in r:
            try:
                json.loads(r["inline"])
            except ValueError:
                out.append(p)
    return out

class Skip(Exception):
    pass

def files_for(fn, env, dirval):
    """Contents of the files dir a row uses (upstream writes them in the test's preamble)."""
    if fn == "TestTranslateFile":
        return {k: v for k, v in env["fileContents"].items()}
    if fn == "TestTranslateSSHAuthorizedKey":
        if dirval.name == "randomDir":
            return {}
        return {k: v for k, v in env["sshKeyData"].items()}
    if fn == "TestTranslateUnitLocal":
        if dirval.name == "randomDir":
            return {}
        return {env["unitName"]: env["unitDefinitionFile"], env["unitEmptyFileName"]: env["unitEmptyDefinition"]}
    raise Skip("no files dir known")

# function -> (wrap input, wrap output, report path prefix)
WRAP = {
    "TestTranslateFile": (lambda d: {"storage": {"files": [d]}}, lambda d: {"storage": {"files": [d]}}, "$.storage.files.0"),
    "TestTranslateDirectory": (lambda d: {"storage": {"directories": [d]}}, lambda d: {"storage": {"directories": [d]}}, "$.storage.directories.0"),
    "TestTranslateLink": (lambda d: {"storage": {"links": [d]}}, lambda d: {"storage": {"links": [d]}}, "$.storage.links.0"),
    "TestTranslateIgnition": (lambda d: {"ignition": d} if d else {}, lambda d: {"ignition": d}, "$.ignition"),
    "TestTranslateMountUnit": (lambda d: d, lambda d: d, "$"),
    "TestTranslateKernelArguments": (lambda d: d, lambda d: d, "$"),
    "TestTranslateTang": (lambda d: d, lambda d: d, "$"),
    "TestTranslateSSHAuthorizedKey": (lambda d: {"passwd": {"users": [dict({"name": "core"}, **d)]}},
                                      lambda d: {"passwd": {"users": [dict({"name": "core"}, **d)]}}, "$.passwd.users.0"),
    "TestTranslateUnitLocal": (lambda d: {"systemd": {"units": [d]}}, lambda d: {"systemd": {"units": [d]}}, "$.systemd.units.0"),
}

def base_vectors(b):
    fv = BASE_TO_FCOS[b]
    V = f"{fcos_ver(fv)}"
    ign = IGNV[fv]
    f = f"base/{base_dir(b)}/translate_test.go"
    src = open(f"{BT}/{f}").read()
    golit.CONSTS["osNotFound"] = "no such file or directory"
    golit.CONSTS["osStatName"] = "stat"
    golit.CONSTS["filepath.Separator"] = "/"
    out, skipped = [], []
    fns = [fn for fn in list(WRAP) + [f"TestToIgn3_{ign.split('.')[1]}"] if f"func {fn}(" in src]
    for fn in fns:
        win, wout, prefix = WRAP.get(fn, (lambda d: d, lambda d: d, "$"))
        rows, env = tables(src, fn)
        for i, row in enumerate(rows):
            name = row.get("name") if isinstance(row.get("name"), str) else f"translate {i}"
            try:
                opts = {}
                o = row.get("options")
                if isinstance(o, Struct):
                    od = dict(o.fields)
                    if set(od) - {"FilesDir"}:
                        raise Skip("options not expressible: " + ",".join(sorted(set(od) - {"FilesDir"})))
                    if "FilesDir" in od:
                        opts["filesDir"] = files_for(fn, env, od["FilesDir"])
                elif o is not None and not (isinstance(o, Struct)):
                    raise Skip("options " + repr(o))
                if "fileDir" in row and is_opaque(row["fileDir"]):
                    opts["filesDir"] = files_for(fn, env, row["fileDir"])
                elif "fileDir" in row and row["fileDir"] == "":
                    pass
                yin = to_data(row["in"], "yaml")
                if not yin and fn not in ("TestTranslateIgnition",) and not fn.startswith("TestToIgn"):
                    raise Skip("empty input")
                y = win(yin)
                rep_s = row.get("report", "")
                if isinstance(rep_s, Struct):
                    rep = report_entries(rep_s)
                elif isinstance(rep_s, str):
                    rep = parse_report_string(rep_s, prefix)
                else:
                    raise Skip("report " + repr(rep_s)[:40])
                ocfg = to_data(row["out"], "json")
                cfg = wout(ocfg) if ocfg or fn == "TestTranslateIgnition" else None
                if cfg is None and not any(e["kind"] == "error" for e in rep):
                    raise Skip("empty output")
                if cfg is not None:
                    cfg.setdefault("ignition", {})
                    cfg["ignition"].setdefault("version", ign)
                if b in DROP and f"fcos {V} base {base_dir(b)} {fn} {name}" in DROP[b]:
                    raise Skip("dropped: " + DROP[b][f"fcos {V} base {base_dir(b)} {fn} {name}"])
                for e in rep:
                    e["message"] = e["message"].replace("%FilesDir%", "%FilesDir%")
                bad_inline = invalid_inline_configs(y) if b >= 2 else []  # base v0_1 does not parse them
                if bad_inline:
                    # Resource.Validate parses inline configs under $.ignition.config (base/v0_*/util.go
                    # ValidateIgnitionConfig): the JSON error and ErrInvalid at <resource>.inline stop the pipeline
                    out.append(vec(f"fcos {V} base {base_dir(b)} {fn} {name}", f, f"{fn}/{name}", "fcos", V,
                                   f"variant: fcos\nversion: {V}\n" + ydump(y),
                                   [E("error", p + ".inline", IGN["ErrInvalid"]) for p in bad_inline], options=opts, match="contains",
                                   note="full pipeline: the source validation parses inline configs under $.ignition.config "
                                        "(not run by upstream's unit test, which calls translateIgnition alone); they are not JSON, so "
                                        "each fails with ErrInvalid at its inline field (and the JSON parser's message, whose path is "
                                        "not fixed here), which stops the pipeline before translation"))
                    continue
                full, added = merge_reports(rep, source_warnings(fv, y))
                vv = vec(f"fcos {V} base {base_dir(b)} {fn} {name}", f, f"{fn}/{name}", "fcos", V,
                         f"variant: fcos\nversion: {V}\n" + ydump(y), full, options=opts)
                if not any(e["kind"] == "error" for e in rep):
                    vv["expected"]["config"] = cfg
                notes = [f"upstream tests base {base_dir(b)} (used by fcos {V}) on the bare {fn[len('TestTranslate'):] or 'config'}; "
                         "wrapped into a config at its place"]
                if fn == "TestTranslateSSHAuthorizedKey":
                    notes.append("the user is named core (upstream's struct has no name; Ignition requires one)")
                if added:
                    notes.append("full pipeline source validation adds " + "; ".join(f"{e['kind']} {e['path']}" for e in added))
                vv["note"] = "; ".join(notes)
                out.append(vv)
            except (Skip, ValueError, KeyError) as e:
                skipped.append((fn, name, str(e)[:100]))
    return f, out, skipped

def quadlet_vectors(b):
    """base v0_8_exp TestTranslateQuadlets: whole configs in and out."""
    fv = BASE_TO_FCOS[b]
    V = fcos_ver(fv)
    f = f"base/{base_dir(b)}/translate_test.go"
    src = open(f"{BT}/{f}").read()
    if "func TestTranslateQuadlets(" not in src:
        return []
    rows, env = tables(src, "TestTranslateQuadlets")
    out = []
    for row in rows:
        name = f"TestTranslateQuadlets/{row['name']}"
        y = to_data(row["inputConfig"], "yaml")
        opts = {}
        o = row.get("options")
        if isinstance(o, Struct) and dict(o.fields).get("FilesDir") is not None:
            opts["filesDir"] = dict(env["fileContents"])
        rep = parse_report_string(row.get("reportPath") or "", "$")
        src_entries = source_warnings(fv, y)
        if any(e["kind"] == "error" for e in src_entries):
            out.append(vec(f"fcos {V} base {base_dir(b)} {name}", f, name, "fcos", V, f"variant: fcos\nversion: {V}\n" + ydump(y),
                           src_entries, options=opts,
                           note="full pipeline: the source validation (not run by upstream's unit test, which calls the translator alone) "
                                "reports " + "; ".join(f"{e['kind']} {e['path']}: {e['message']}" for e in src_entries) +
                                ", which stops the pipeline before translation (upstream's test expects: " +
                                "; ".join(e["message"] for e in rep) + ")"))
            continue
        full, added = merge_reports(rep, src_entries)
        vv = vec(f"fcos {V} base {base_dir(b)} {name}", f, name, "fcos", V, f"variant: fcos\nversion: {V}\n" + ydump(y), full, options=opts)
        if not rep:
            try:
                cfg = to_data(row["outConf"], "json")
            except ValueError as e:
                # Butane picks gzip only when it is shorter; with Go's deflate that choice cannot be predicted here
                print("   skip", name, str(e))
                continue
            cfg.setdefault("ignition", {}).setdefault("version", IGNV[fv])
            vv["expected"]["config"] = cfg
        if added:
            vv["note"] = "full pipeline source validation adds " + "; ".join(f"{e['kind']} {e['path']}" for e in added)
        out.append(vv)
    return out

def main_translate():
    for b in range(1, 9):
        f, vs, sk = base_vectors(b)
        vs = vs + tree_vectors(b) + quadlet_vectors(b)
        write(f"base-{base_dir(b)}-translate_test.json", f, vs)
        for s in sk:
            print("   skip", s)


# ---------------- base/v0_*/validate_test.go ----------------
# function -> (table var, wrap(yaml data) -> config, path prefix, match, note)
VWRAP = {
    "TestValidateResource": ("tests", lambda d: {"storage": {"files": [{"path": "/f", "contents": d}]}}, "$.storage.files.0.contents", "exact",
                             "wrapped as the contents of file /f; the source-validation error stops the pipeline"),
    "TestValidateTree": ("tests", lambda d: {"storage": {"trees": [d]}}, "$.storage.trees.0", "exact",
                         "wrapped as storage.trees.0; the source-validation error stops the pipeline"),
    "TestValidateFileMode": ("fileTests", lambda d: {"storage": {"files": [dict({"path": "/f"}, **d)]}}, "$.storage.files.0", "contains",
                             "wrapped as file /f; a warning, so later stages (Ignition's special-bits warning) may add entries"),
    "TestValidateDirMode": ("dirTests", lambda d: {"storage": {"directories": [dict({"path": "/d"}, **d)]}}, "$.storage.directories.0", "contains",
                            "wrapped as directory /d; a warning, so later stages (Ignition's special-bits warning) may add entries"),
    "TestValidateFilesystem": ("tests", lambda d: {"storage": {"filesystems": [d]}}, "$.storage.filesystems.0", "exact",
                               "wrapped as storage.filesystems.0; the source-validation error stops the pipeline"),
    "TestValidateUnit": ("tests", lambda d: {"systemd": {"units": [dict({"name": "example.service"}, **d)]}}, "$.systemd.units.0", "exact",
                         "wrapped as unit example.service; the source-validation error stops the pipeline"),
    "TestValidateQuadlet": ("tests", lambda d: {"systemd": {"quadlets": [d]}}, "$.systemd.quadlets.0", "exact",
                            "wrapped as systemd.quadlets.0; the source-validation error stops the pipeline"),
    "TestValidateDropin": ("tests", lambda d: {"systemd": {"units": [{"name": "example.service", "dropins": [dict({"name": "example.conf"}, **d)]}]}},
                           "$.systemd.units.0.dropins.0", "exact",
                           "wrapped as drop-in example.conf of unit example.service; the source-validation error stops the pipeline"),
}
WARN_FUNCS = {"TestValidateFileMode", "TestValidateDirMode"}

def base_validate_vectors(b):
    fv = BASE_TO_FCOS[b]
    V = f"{fcos_ver(fv)}"
    f = f"base/{base_dir(b)}/validate_test.go"
    src = open(f"{BT}/{f}").read()
    out = []
    for fn, (tv, wrap, prefix, match, note) in VWRAP.items():
        if f"func {fn}(" not in src:
            continue
        rows, env = tables(src, fn, tv)
        for i, row in enumerate(rows):
            err = row.get("out")
            if "reportPath" in row:
                if not row["reportPath"]:
                    continue
                ents = parse_report_string(row["reportPath"], prefix)
                err, p, kind = ErrVal(ents[0]["message"]), ents[0]["path"], ents[0]["kind"]
                extra_ents = ents[1:]
            elif not isinstance(err, ErrVal):
                continue  # no-error rows: only say the stage alone is silent
            else:
                extra_ents = []
                p = row["errPath"].dollar() if "errPath" in row else ("$.mode" if fn in WARN_FUNCS else "$")
                p = prefix + p[1:]
                kind = "warning" if fn in WARN_FUNCS else "error"
            y = wrap(to_data(row["in"], "yaml"))
            name = f"{fn}/validate {i}"
            vv = vec(f"fcos {V} base {base_dir(b)} {name}", f, name, "fcos", V, f"variant: fcos\nversion: {V}\n" + ydump(y),
                     [E(kind, p, err.msg)] + extra_ents, match=match, note=f"upstream validates the bare struct (base {base_dir(b)}, used by fcos {V}); " + note)
            out.append(vv)
    if "func TestUnkownIgnitionVersion(" in src:
        inline = '{"ignition": {"version": "10.0.0"}}'
        y = {"ignition": {"config": {"merge": [{"inline": inline}]}}}
        out.append(vec(f"fcos {V} base {base_dir(b)} TestUnkownIgnitionVersion", f, "TestUnkownIgnitionVersion", "fcos", V,
                       f"variant: fcos\nversion: {V}\n" + ydump(y), [E("warning", "$.ignition.config.merge.0.version", COMMON["ErrUnkownIgnitionVersion"])],
                       match="contains",
                       note="upstream validates a bare resource under the path $.ignition.config; here it is a merged config "
                            "(ignition.config.merge.0.inline); the resource's validation runs for every resource under $.ignition.config and warns at <resource>.version (base/v0_*/util.go ValidateIgnitionConfig)"))
    return f, out




# ---------------- base/v0_*/translate_test.go TestTranslateTree ----------------
def strip_funcs(body):
    """Replace the Go func literals of the tree table: the mode closure (0755 off Windows) and the skip hooks
    (they only skip on Windows)."""
    body = re.sub(r"func\(\) int \{.*?return 0755.*?\}\(\)", "0755", body, flags=re.S)
    out, i = [], 0
    while True:
        j = body.find("skip: func(t *testing.T) {", i)
        if j < 0:
            out.append(body[i:]); break
        out.append(body[i:j])
        k = body.index("{", j); depth = 0
        while True:
            if body[k] == "{": depth += 1
            elif body[k] == "}":
                depth -= 1
                if depth == 0: break
            k += 1
        i = k + 1
        if body[i] == ",": i += 1
    return "".join(out)

def tree_vectors(b):
    fv = BASE_TO_FCOS[b]
    V = f"{fcos_ver(fv)}"
    ign = IGNV[fv]
    f = f"base/{base_dir(b)}/translate_test.go"
    src = open(f"{BT}/{f}").read()
    if "func TestTranslateTree(" not in src:
        return []
    body = "func TestTranslateTree(t *testing.T) {" + strip_funcs(func_body(src, "TestTranslateTree")) + "}"
    rows, env = tables(body, "TestTranslateTree")
    out = []
    for i, row in enumerate(rows):
        name = f"TestTranslateTree/translate {i}"
        dirs = row.get("dirDirs") or {}
        files = row.get("dirFiles") or {}
        if not row.get("inTrees") and not row.get("inFiles"):
            continue  # smoke test: empty config
        if any(m == 0 for m in list(dirs.values()) + list(files.values())):
            continue  # unreadable-file case: root (CI) reads mode-0 files, so it cannot hold here
        storage = {}
        for k, yk in (("inFiles", "files"), ("inDirs", "directories"), ("inLinks", "links"), ("inTrees", "trees")):
            if row.get(k):
                storage[yk] = to_data(row[k], "yaml")
        y = {"storage": storage}
        opts = {}
        o = row.get("options")
        if not (isinstance(o, Struct) and not o.fields):
            opts["filesDir"] = {p: p for p in files}
            modes = {p: m for p, m in files.items()}
            if modes: opts["filesDirModes"] = modes
            if dirs: opts["filesDirDirs"] = dict(dirs)
            if row.get("dirLinks"): opts["filesDirLinks"] = dict(row["dirLinks"])
            if row.get("dirSockets"): opts["filesDirSockets"] = list(row["dirSockets"])
        rep = parse_report_string(row.get("report") or "", "$")
        full, added = merge_reports(rep, source_warnings(fv, y))
        vv = vec(f"fcos {V} base {base_dir(b)} {name}", f, name, "fcos", V, f"variant: fcos\nversion: {V}\n" + ydump(y), full, options=opts)
        if not rep:
            st = {}
            if row.get("outFiles"): st["files"] = to_data(row["outFiles"], "json")
            if row.get("outDirs"): st["directories"] = to_data(row["outDirs"], "json")
            if row.get("outLinks"): st["links"] = to_data(row["outLinks"], "json")
            vv["expected"]["config"] = {"ignition": {"version": ign}, **({"storage": st} if st else {})}
        notes = ["the files dir holds upstream's tree: each file's contents is its relative path, with the given modes, "
                 "directories, symlinks and sockets"]
        if added:
            notes.append("full pipeline source validation adds " + "; ".join(f"{e['kind']} {e['path']}" for e in added))
        vv["note"] = "; ".join(notes)
        out.append(vv)
    return out


if __name__ == "__main__":
    main_translate()
    for b in range(1, 9):
        f, vs = base_validate_vectors(b)
        write(f"base-{base_dir(b)}-validate_test.json", f, vs)
