# Warp-stall samples of an Nsight Compute SASS page (ncu -i REP --page source --print-source sass --csv > F.csv),
# by reason, and the FFMAs split by register-bank conflict (two banks, register number mod 2; an operand the
# previous FFMA read in the same slot counts as reused): conflicting FFMAs wait longer in dispatch.
#   python3 scripts/matmul-explore/stalls.py docs/results/h100-2026-11-25/matmul-profile/ncu-k16-sass.csv.gz
import csv, collections, gzip, io, re, sys

for path in sys.argv[1:]:
    text = gzip.open(path, 'rt').read() if path.endswith('.gz') else open(path).read()
    rows = list(csv.reader(io.StringIO(text)))
    header, data = rows[1], rows[2:]
    col = {h: i for i, h in enumerate(header)}
    reasons = [h for h in header if h.startswith('stall_') and '(' not in h]

    def value(row, name):
        try:
            return float(row[col[name]].replace(',', ''))
        except ValueError:
            return 0.0

    totals = collections.Counter()
    split = {True: [0, 0.0], False: [0, 0.0]}
    previous = None
    for row in data:
        for r in reasons:
            totals[r] += value(row, r)
        m = re.match(r'\s*FFMA(?:\.FTZ)?\s+R\d+,\s*-?R(\d+),\s*-?R(\d+),\s*-?R(\d+)', row[col['Source']])
        if not m:
            previous = None
            continue
        regs = [int(g) for g in m.groups()]
        read = [r for i, r in enumerate(regs) if previous is None or previous[i] != r]
        banks = [r % 2 for r in read]
        conflict = len(banks) != len(set(banks))
        split[conflict][0] += 1
        split[conflict][1] += value(row, 'stall_dispatch')
        previous = regs
    all_samples = sum(totals.values())
    print(path)
    for r, v in totals.most_common():
        if v:
            print('  %-24s %8d  %5.1f%%' % (r, v, 100 * v / all_samples))
    for conflict in (True, False):
        n, d = split[conflict]
        if n:
            print('  FFMA %s a bank conflict: %d instructions, %.1f dispatch-stall samples each' % (
                'with' if conflict else 'without', n, d / n))
