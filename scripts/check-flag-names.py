#!/usr/bin/env python3
"""Fails (exit 1) when a library names a command-line flag in a string literal.

Libraries speak of settings by key (SettingKey, interpolated into a SettingText); the CLI's one
table, Sources/sockctl/Arguments/OptionNames.swift, words each key as its flag. This is the
issue's grep, `grep -rnE '"[^"]*--[a-z]' Sources --include=*.swift` outside Sources/sockctl,
which must find nothing. Run by `make test` (next to check-imports.py).
"""
import pathlib, re, sys

PATTERN = re.compile(r'"[^"]*--[a-z]')

def main() -> int:
    root = pathlib.Path(__file__).resolve().parent.parent
    found = {}
    for file in sorted((root / "Sources").rglob("*.swift")):
        relative = file.relative_to(root).as_posix()
        if relative.startswith("Sources/sockctl/"):
            continue
        for number, line in enumerate(file.read_text().splitlines(), 1):
            if PATTERN.search(line):
                found.setdefault(relative, []).append(f"{relative}:{number}:{line.strip()}")
    problems = [line for lines in found.values() for line in lines]
    for line in problems:
        print(line)
    if problems:
        print("check-flag-names: a library names a --flag; name the setting with a SettingKey "
              "(Sources/sockctl/Arguments/OptionNames.swift words it)", file=sys.stderr)
        return 1
    return 0

if __name__ == "__main__":
    sys.exit(main())
