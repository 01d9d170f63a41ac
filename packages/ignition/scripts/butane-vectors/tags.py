import os
import re, glob, collections
def scan(files, key):
    m = collections.defaultdict(set)
    for f in files:
        for line in open(f):
            mm = re.match(r'\s+(\w+)\s+([\w\.\*\[\]]+)\s+`' + key + r':"([^"]*)"', line)
            if mm:
                m[mm.group(1)].add(mm.group(3).split(",")[0] if mm.group(3) and not mm.group(3).startswith(",") else "<inline>")
    return m
S = os.environ.get("BUTANE_SRC", "/tmp/bt") + "/"
Y = scan(glob.glob(S+"base/*/schema.go")+glob.glob(S+"config/*/*/schema.go")+[S+"config/common/common.go"], "yaml")
J = scan(glob.glob(S+"vendor/**/schema.go", recursive=True)+glob.glob(S+"config/openshift/*/result/schema.go"), "json")
if __name__ == "__main__":
    for n, m in (("yaml", Y), ("json", J)):
        for k, v in sorted(m.items()):
            if len(v) > 1: print(n, k, v)
