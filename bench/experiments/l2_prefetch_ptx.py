"""Experiment (run 31): the decode kernel's PTX with an L2 prefetch D super-blocks ahead of each weight copy.

    python bench/experiments/l2_prefetch_ptx.py KERNEL.ptx D CHUNKS OUT.ptx

KERNEL.ptx is the cached PTX of ``small_m 64 w2 splitk s2`` (bench/mmq.py's decode kernel);
after each 16-byte ``cp.async`` of a weight row in the K loop whose index (0-8 within the
thread's nine) is in CHUNKS (e.g. ``0,4,8``), ``prefetch.global.L2`` fetches the same bytes
D super-blocks (D · 144 bytes) further along K. A hand edit to measure the idea before
building it into qdot-pipeline; it was slower (bench/RESULTS.md, run 31), so it was not.
"""
import re, sys
src = open(sys.argv[1]).read()
dist, chunks, out = int(sys.argv[2]), [int(c) for c in sys.argv[3].split(",")], sys.argv[4]
lines = src.split("\n")
start = next(i for i, l in enumerate(lines) if l.startswith("$L__BB0_5:"))
end = next(i for i, l in enumerate(lines) if "bra \t$L__BB0_5;" in l)
res, n, w = [], 0, 0
defs = {}
for i, l in enumerate(lines):
    m = re.match(r"\s*(\w[\w.]*)\s+(%\w+), (.*);", l)
    if m:
        defs[m.group(2)] = (m.group(1), m.group(3))
    res.append(l)
    if start < i < end and l.strip().startswith("cp.async.cg.shared.global") and "+18432" not in l:
        addr = re.search(r"\], \[(%rd\d+)\]", l).group(1)
        op, args = defs[addr]; assert op == "cvta.to.global.u64", (op, args)
        op, args = defs[args.strip()]; assert op == "add.s64", (op, args)
        sel, base = [a.strip() for a in args.split(",")]
        op, args = defs[sel]; assert op == "selp.b64", (op, args)
        raw = args.split(",")[0].strip()
        if w % 9 in chunks:
            res += [f"\tadd.s64 \t%pf{n}, {raw}, {base};", f"\tcvta.to.global.u64 \t%pf{n}, %pf{n};",
                    f"\tprefetch.global.L2 \t[%pf{n}+{dist * 144}];"]
            n += 1
        w += 1
text = "\n".join(res).replace("\t.reg .b64 \t%rd<", f"\t.reg .b64 \t%pf<{n + 1}>;\n\t.reg .b64 \t%rd<", 1)
open(out, "w").write(text)
print(out, "W copies in loop:", w, "prefetches:", n)
