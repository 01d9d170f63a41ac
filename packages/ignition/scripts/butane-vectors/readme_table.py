"""Rewrite the '## Files' table of the vectors README from the vector files."""
import glob, json, os, re
D = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "test", "fixtures", "upstream", "butane")
def order(n):
    return [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", n)]
rows, tot = [], 0
for f in sorted(glob.glob(os.path.join(D, "*.json")), key=lambda p: order(os.path.basename(p))):
    d = json.load(open(f)); n = len(d["vectors"]); tot += n
    rows.append(f"| `{os.path.basename(f)}` | `{d['upstream']['file']}` | {n} |")
p = os.path.join(D, "README.md")
s = open(p).read()
s = s[: s.index("## Files")] + "## Files\n\n| file | upstream test file | vectors |\n|---|---|---|\n" + "\n".join(rows) + f"\n| **total** | | **{tot}** |\n"
open(p, "w").write(s)
print(tot)
