import os
import re, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *

ROLE = "machineconfiguration.openshift.io/role"
def ign_of(v):
    if v == 23:
        return "3.7.0-experimental"
    return "3.2.0" if v <= 13 else ("3.4.0" if v <= 18 else "3.5.0")

def hdr(v):
    return f"variant: openshift\nversion: {os_ver(v)}\n"

META_Z = "metadata:\n  name: z\n  labels:\n    machineconfiguration.openshift.io/role: z\n"

def mc(v, config_extra=None, spec_extra=None):
    cfg = {"ignition": {"version": ign_of(v)}}
    if config_extra:
        cfg.update(config_extra)
    spec = {"config": cfg}
    if spec_extra:
        spec.update(spec_extra)
    return {"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfig",
            "metadata": {"name": "z", "labels": {ROLE: "z"}}, "spec": spec}

def correlation_cases(v):
    t = open(f"{BT}/config/openshift/{os_dir(v)}/validate_test.go").read()
    sec = t[t.index("func TestReportCorrelation"):]
    cases = re.findall(r'\{\s*`((?:[^`])*)`,\s*([^\n]+?),\s*(\d+),\s*\}', sec)
    out = []
    for src, m, line in cases:
        out.append((dedent(src), msg(m.strip()), int(line)))
    return out

# kind and path of each correlation message, from upstream code (base validate, Ignition validate)
CORR_KIND = {
    "unused key q": ("warning", "$.storage.files.0.q"),
    COMMON["ErrTooManyResourceSources"]: ("error", "$.storage.files.0.contents.source"),
    COMMON["ErrDecimalMode"]: ("warning", "$.storage.files.0.mode"),
    COMMON["ErrNoFilesDir"]: ("error", "$.storage.files.0.contents.local"),
    IGN["ErrPathRelative"]: ("error", "$.storage.files.0.path"),
    IGN["ErrNeedLabelOrNumber"]: ("error", "$.storage.disks.0.partitions.0"),
    IGN["ErrZeroesWithShouldNotExist"]: ("error", "$.storage.disks.0.partitions"),
    IGN["ErrDuplicate"]: ("error", "$.storage.files.1"),
}

def validate_file(v):
    f = f"config/openshift/{os_dir(v)}/validate_test.go"
    V = f"{os_ver(v)}"
    out = []
    def add(name, test, inp, rep, **kw):
        out.append(vec(f"openshift {V} {name}", f, test, "openshift", V, hdr(v) + inp, rep, **kw))
    add("metadata: missing name", "TestValidateMetadata/validate 0",
        "metadata:\n  labels:\n    machineconfiguration.openshift.io/role: r\n",
        [E("error", "$.metadata.name", COMMON["ErrNameRequired"])])
    add("metadata: missing role", "TestValidateMetadata/validate 1",
        "metadata:\n  name: n\n", [E("error", "$.metadata.labels", COMMON["ErrRoleRequired"])])
    add("metadata: empty role", "TestValidateMetadata/validate 2",
        "metadata:\n  name: n\n  labels:\n    machineconfiguration.openshift.io/role: \"\"\n",
        [E("error", "$.metadata.labels", COMMON["ErrRoleRequired"])])
    add("openshift: bad kernel type", "TestValidateOpenShift/validate 1",
        "metadata:\n  name: n\n  labels:\n    machineconfiguration.openshift.io/role: r\nopenshift:\n  kernel_type: hurd\n",
        [E("error", "$.openshift.kernel_type", COMMON["ErrInvalidKernelType"])],
        note="upstream validates the openshift section alone; a valid metadata section is added so the full pipeline reports only this entry")
    if v >= 19:
        cex = COMMON["ErrMissingKernelArgumentCex"]
        note = "upstream validates the Config struct alone (no metadata); the full pipeline also reports the missing metadata.name and role label, so the report must contain (not equal) this entry"
        for i, (layout, dev) in enumerate([("s390x-eckd", "/dev/dasda"), ("s390x-zfcp", "/dev/sda"), ("s390x-virt", None)]):
            inp = f"boot_device:\n  layout: {layout}\n  luks:\n" + (f"    device: {dev}\n" if dev else "") + \
                  "    cex:\n      enabled: true\nopenshift:\n  kernel_arguments: []\n"
            add(f"config: cex on {layout} without rd.luks.key karg", f"TestValidateConfig/validate {i}", inp,
                [E("error", "$.openshift.kernel_arguments", cex)], match="contains", note=note)
        inp = """storage:
  filesystems:
    - device: /dev/mapper/root
      format: xfs
      label: root
      wipe_filesystem: true
    - device: /dev/mapper/foo
      format: xfs
      label: foo
      wipe_filesystem: true
  luks:
    - name: root
      label: luks-root
      device: /dev/disk/by-label/root
      wipe_volume: true
      cex:
        enabled: true
    - name: foo
      label: luks-foo
      device: /dev/disk/by-label/foo
      wipe_volume: true
      cex:
        enabled: true
openshift:
  kernel_arguments: []
"""
        add("config: cex on storage.luks without rd.luks.key karg", "TestValidateConfig/validate 3", inp,
            [E("error", "$.openshift.kernel_arguments", cex)], match="contains", note=note)
    for i, (src, m, line) in enumerate(correlation_cases(v)):
        kind, p = CORR_KIND[m]
        # upstream's input has no variant/version (it calls the version's ToConfigBytes directly); they are
        # appended at the end so that line numbers stay those upstream asserts
        inp = src.rstrip("\n") + "\n" + hdr(v)
        for raw in (False, True):
            e = E(kind, p, m, line=line)
            out.append(vec(f"openshift {V} report correlation {i} ({m}){' raw' if raw else ''}", f,
                           f"TestReportCorrelation/validate {i} (raw {str(raw).lower()})", "openshift", V, inp, [e],
                           options={"raw": raw},
                           note="upstream asserts exactly one entry, its message and its line; kind and path (where given) follow from the upstream code that emits it"))
        if kind == "warning":
            out.append(vec(f"openshift {V} report correlation {i} ({m}) strict", f,
                           f"TestReportCorrelation/validate {i} (raw false)", "openshift", V, inp, [E(kind, p, m, line=line)],
                           options={"strict": True}, note="derived from the case above: upstream's CLI with --strict fails when the report has any entry (internal/main.go); the report is the same"))
    return f, out

ZZZ = "z" * 149

def translate_file(v):
    f = f"config/openshift/{os_dir(v)}/translate_test.go"
    V = f"{os_ver(v)}"
    ign = ign_of(v)
    out = []
    def add(name, test, inp, rep, **kw):
        out.append(vec(f"openshift {V} {name}", f, test, "openshift", V, hdr(v) + inp, rep, **kw))
    add("elided fields warn in raw mode", "TestElidedFieldWarning",
        META_Z + "openshift:\n  kernel_arguments:\n    - a\n    - b\n  fips: true\n  kernel_type: realtime\n",
        [E("warning", "$.openshift.kernel_arguments", COMMON["ErrFieldElided"]),
         E("warning", "$.openshift.fips", COMMON["ErrFieldElided"]),
         E("warning", "$.openshift.kernel_type", COMMON["ErrFieldElided"])],
        config={"ignition": {"version": ign}}, options={"raw": True},
        note="upstream's struct has metadata.name only; the role label is added because the full pipeline validates metadata")
    i = 0
    add("translate: empty-ish config", f"TestTranslateConfig/translate {i}", META_Z, [], config=mc(v)); i += 1
    if v == 23:
        # the experimental version's extra case (grub users), read from the Go table
        import golit, yaml
        src = open(f"{BT}/{f}").read()
        rows, _ = golit.tables(src, "TestTranslateConfig")
        row = rows[i]
        y = golit.to_data(row["in"], "yaml")
        add("translate: grub users", f"TestTranslateConfig/translate {i}",
            yaml.safe_dump(y, sort_keys=False, default_flow_style=False), [], config=golit.to_data(row["out"], "json"))
        i += 1
    if v <= 9:
        add("translate: automatic compression is disabled", f"TestTranslateConfig/translate {i}",
            META_Z + f"storage:\n  files:\n    - path: /z\n      contents:\n        inline: {ZZZ}\n", [],
            config=mc(v, {"storage": {"files": [{"path": "/z", "contents": {"compression": "", "source": "data:," + ZZZ}}]}}))
        i += 1
    if v <= 19:
        fo = ["--cipher", "aes-cbc-essiv:sha256"]
        names = [("a", None), ("b", ["b", "b"]), ("c", ["c", "--cipher", "c"]), ("d", ["--cipher=z"]), ("e", ["-c", "z"]), ("f", ["--ciphertext"])]
        inp = META_Z + "openshift:\n  fips: true\nstorage:\n  luks:\n"
        luks_out = [{"name": "root", "device": "/dev/disk/by-partlabel/root", "label": "luks-root", "wipeVolume": True,
                     "options": fo, "clevis": {"tpm2": True}}]
        for k, (n, opts) in enumerate(names):
            dev = f"/dev/vd{chr(ord('b') + k)}"
            inp += f"    - name: {n}\n      device: {dev}\n"
            if opts:
                inp += "      options:\n" + "".join(f"        - \"{o}\"\n" for o in opts)
            has = opts and any(o == "--cipher" or o.startswith("--cipher=") or o == "-c" for o in opts)
            o2 = (opts or []) + ([] if has else fo)
            luks_out.append({"name": n, "device": dev, "options": o2})
        inp += "boot_device:\n  luks:\n    tpm2: true\n"
        add("translate: FIPS adds the cipher to LUKS volumes", f"TestTranslateConfig/translate {i}", inp, [],
            config=mc(v, {"storage": {"filesystems": [{"device": "/dev/mapper/root", "format": "xfs", "label": "root", "wipeFilesystem": True}],
                                      "luks": luks_out}}, {"fips": True}),
            note="derived: upstream's LUKS volumes a-f have no device (its unit test skips Ignition validation, which requires one); a device /dev/vdb.. is added to each")
    # TestValidateSupport
    j = 0
    add("support: empty-ish config", f"TestValidateSupport/translate {j}", META_Z, []); j += 1
    core = "passwd:\n  users:\n    - name: core\n" + ("      password_hash: corned beef\n" if v >= 13 else "") + "      ssh_authorized_keys:\n        - value\n"
    add("support: core user with only accepted fields", f"TestValidateSupport/translate {j}", META_Z + core, []); j += 1
    add("support: valid data URL", f"TestValidateSupport/translate {j}",
        META_Z + "storage:\n  files:\n    - path: /f\n      contents:\n        source: \"data:,foo\"\n", []); j += 1
    if v <= 9:
        add("support: uncompressed inline contents", f"TestValidateSupport/translate {j}",
            META_Z + "storage:\n  files:\n    - path: /a\n      contents:\n        inline: foo\n", []); j += 1
    g = "    - path: /g\n      append:\n        - inline: z\n"
    if v <= 9:
        g += "      contents:\n        inline: z\n        compression: gzip\n"
    h = "    - path: /h\n      contents:\n        source: https://example.com/\n" + ("      mode: 04755\n" if v >= 10 else "")
    fss = "  filesystems:\n    - device: /dev/vda4\n      format: btrfs\n" + ("    - device: /dev/vda5\n      format: none\n" if v >= 14 else "")
    inp = META_Z + "storage:\n  files:\n    - path: /f\n" + g + h + \
        "    - path: /i\n      contents:\n        source: \"data:,z\"\n        http_headers:\n          - name: foo\n            value: bar\n" + \
        fss + "  directories:\n    - path: /d\n  links:\n    - path: /l\n      target: /t\n" + \
        "passwd:\n  users:\n    - name: core\n      gecos: mercury delay line\n      groups:\n        - z\n      home_dir: /home/drum\n" + \
        "      no_create_home: true\n      no_log_init: true\n      no_user_group: true\n      password_hash: corned beef\n" + \
        "      primary_group: wheel\n      ssh_authorized_keys:\n        - value\n" + \
        ("      ssh_authorized_keys_local: []\n" if v >= 14 else "") + \
        "      shell: /bin/tcsh\n      should_exist: false\n      system: true\n      uid: 42\n    - name: bovik\n" + \
        "  groups:\n    - name: mock\n" + \
        ("kernel_arguments:\n  should_exist:\n    - foo\n  should_not_exist:\n    - bar\n" if v >= 14 else "")
    rep = [E("error", "$.storage.filesystems.0.format", COMMON["ErrBtrfsSupport"])]
    if v >= 14:
        rep.append(E("error", "$.storage.filesystems.1.format", COMMON["ErrFilesystemNoneSupport"]))
    rep.append(E("error", "$.storage.files.2.contents.source", COMMON["ErrFileSchemeSupport"]))
    if v >= 10:
        rep.append(E("error", "$.storage.files.2.mode", COMMON["ErrFileSpecialModeSupport"]))
    rep.append(E("error", "$.passwd.users.1.name", COMMON["ErrUserNameSupport"]))
    add("support: all the errors (code checks)", f"TestValidateSupport/translate {j}", inp, rep, match="contains",
        note="upstream's unit test runs the unvalidated translator and then the field filters itself; in the full pipeline "
             "the translation's errors (these code checks) are fatal before the field filters run, so only these are expected")
    return f, out

for v in range(8, 24):
    f, vs = validate_file(v)
    write(f"openshift-{os_dir(v)}-validate_test.json", f, vs)
    f, vs = translate_file(v)
    write(f"openshift-{os_dir(v)}-translate_test.json", f, vs)
