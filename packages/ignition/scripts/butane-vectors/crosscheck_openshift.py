"""Cross-check the hand-written openshift vectors against the Go tables read by golit: inputs and outputs of
TestTranslateConfig (FIPS compared without the added devices) and TestValidateSupport, and the expected
entries of the all-errors case (the translation-time "code" subset of the Go entries)."""
import sys, json, yaml, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("BUTANE_SRC", "/tmp/bt2")
from common import *
import golit
golit.CONSTS.update({"fipsCipherOption": "--cipher", "fipsCipherArgument": "aes-cbc-essiv:sha256"})
from golit import tables, to_data
D = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "test", "fixtures", "upstream", "butane") + "/"
bad = 0
for v in range(8, 24):
    vd = os_dir(v)
    src = open(f"{BT}/config/openshift/{vd}/translate_test.go").read()
    hand = json.load(open(f"{D}openshift-{vd}-translate_test.json"))["vectors"]
    hv = {x["source"]["test"]: x for x in hand}
    rows, _ = tables(src, "TestTranslateConfig")
    for i, r in enumerate(rows):
        t = f"TestTranslateConfig/translate {i}"
        if t not in hv: print("missing", vd, t); continue
        y = yaml.safe_load(hv[t]["input"]); y.pop("variant"); y.pop("version")
        gy = to_data(r["in"], "yaml")
        gout = to_data(r["out"], "json")
        if "FIPS" in hv[t]["name"]:
            # derived: devices added; compare after removing them
            import copy
            h = copy.deepcopy(hv[t]["expected"]["config"])
            for l in h["spec"]["config"]["storage"]["luks"][1:]: l.pop("device")
            yy = copy.deepcopy(y)
            for l in yy["storage"]["luks"]: l.pop("device")
            if h != gout: bad += 1; print("FIPS OUT DIFF", vd, json.dumps(h)[:300], json.dumps(gout)[:300])
            if yy != gy: bad += 1; print("FIPS IN DIFF", vd, yy, gy)
            continue
        if y != gy: bad += 1; print("INPUT DIFF", vd, t, y, gy)
        if hv[t]["expected"]["config"] != gout: bad += 1; print("OUTPUT DIFF", vd, t, json.dumps(hv[t]["expected"]["config"])[:300], json.dumps(gout)[:300])
    rows, _ = tables(src, "TestValidateSupport")
    for i, r in enumerate(rows):
        t = f"TestValidateSupport/translate {i}"
        if t not in hv: print("missing", vd, t); continue
        y = yaml.safe_load(hv[t]["input"]); y.pop("variant"); y.pop("version")
        gy = to_data(r["in"], "yaml")
        if y != gy: bad += 1; print("INPUT DIFF", vd, t, json.dumps(y)[:400], "\n   GO:", json.dumps(gy)[:400])
        # expected entries: code subset check
print("bad", bad)
# case-4 expected entries vs the Go table's entries
CODE = {COMMON[k] for k in ("ErrBtrfsSupport", "ErrFilesystemNoneSupport", "ErrFileSchemeSupport", "ErrFileSpecialModeSupport", "ErrUserNameSupport")}
for v in range(8, 24):
    vd = os_dir(v)
    src = open(f"{BT}/config/openshift/{vd}/translate_test.go").read()
    hand = {x["source"]["test"]: x for x in json.load(open(f"{D}openshift-{vd}-translate_test.json"))["vectors"]}
    rows, _ = tables(src, "TestValidateSupport")
    r = rows[-1]
    go = set()
    for e in r["entries"]:
        kind, err, p = [x for _, x in e.fields]
        go.add((kind, p.dollar(), err.msg))
    mine = {(e["kind"], e["path"], e["message"]) for e in hand[f"TestValidateSupport/translate {len(rows)-1}"]["expected"]["report"]}
    want = {x for x in go if x[2] in CODE}
    print(vd, "OK" if mine == want else f"DIFF mine-go={mine-want} go-mine={want-mine}")
    y = yaml.safe_load(hand[f"TestValidateSupport/translate {len(rows)-1}"]["input"]); y.pop("variant"); y.pop("version")
    gy = to_data(r["in"], "yaml")
    if y != gy: print("  INPUT DIFF")
