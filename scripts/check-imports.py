#!/usr/bin/env python3
"""Compares each target's imports with what Package.swift declares for it.

Fails (exit 1) on a module imported but not declared, and on a declared dependency no file of
the target imports. Toolchain modules need no declaration. Run by `make test` (and .ci/run).
"""
import json, pathlib, re, subprocess, sys

TOOLCHAIN = {"Foundation", "FoundationEssentials", "Dispatch", "Glibc", "Synchronization",
             "Testing", "XCTest", "_Concurrency", "PackageDescription", "PackagePlugin"}

def main() -> int:
    package = json.loads(subprocess.run(["swift", "package", "dump-package"], check=True,
                                        capture_output=True, text=True).stdout)
    problems = []
    for target in package["targets"]:
        if target["type"] in ("system", "plugin"):
            continue
        name = target["name"]
        declared = set()
        for dep in target.get("dependencies", []):
            for kind in ("byName", "target", "product"):
                if kind in dep:
                    declared.add(dep[kind][0])
        path = pathlib.Path(target.get("path") or ("Tests/" + name if target["type"] == "test" else "Sources/" + name))
        imported = {}
        for file in path.rglob("*.swift"):
            in_string = False
            for line in file.read_text().splitlines():
                if line.count('"""') % 2 == 1:
                    in_string = not in_string
                    continue
                if in_string:
                    continue
                m = re.match(r"\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*(?:package\s+|public\s+)?import\s+(?:(?:struct|class|enum|func|var|protocol)\s+)?([A-Za-z_][A-Za-z0-9_]*)", line)
                if m:
                    imported.setdefault(m.group(1), str(file))
        for module, file in sorted(imported.items()):
            if module not in declared and module not in TOOLCHAIN and module != name:
                problems.append(f"{name}: imports {module} ({file}) but Package.swift does not declare it")
        for module in sorted(declared - set(imported)):
            problems.append(f"{name}: declares {module} but no file imports it")
    for line in problems:
        print(f"check-imports: {line}", file=sys.stderr)
    return 1 if problems else 0

if __name__ == "__main__":
    sys.exit(main())
