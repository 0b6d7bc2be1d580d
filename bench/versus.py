#!/usr/bin/env python3
"""Lines up two outputs of one bench script (baseline, new) row by row.

A row with figures is printed twice (old, new) followed by the ratio new/old of each figure;
rows without figures (titles, notes) are printed once. Rows whose labels differ are printed as
they are, one after the other.
"""
import re, sys

NUMBER = re.compile(r"-?\d+(?:\.\d+)?")

def label(line):
    return NUMBER.sub("#", line).strip()

def main(old_path, new_path):
    old = [l.rstrip("\n") for l in open(old_path)]
    new = [l.rstrip("\n") for l in open(new_path)]
    for i in range(max(len(old), len(new))):
        a = old[i] if i < len(old) else ""
        b = new[i] if i < len(new) else ""
        if a == b:
            print(a)
            continue
        if label(a) != label(b):
            print("old: " + a)
            print("new: " + b)
            continue
        ratios = []
        for x, y in zip(NUMBER.findall(a), NUMBER.findall(b)):
            x, y = float(x), float(y)
            ratios.append("%.2fx" % (y / x) if x else "-")
        print("old: " + a)
        print("new: " + b)
        print("     new/old: " + " ".join(ratios))

if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
