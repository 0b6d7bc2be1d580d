#!/usr/bin/env python3
"""Tidies the man pages swift-argument-parser's generate-manual writes, so that
`mandoc -Tlint -W warning` finds nothing in them: `make docs` runs it on man/*.1, and the docs
test runs it on the pages it generates before comparing them with man/.

Usage: man-tidy.py FILE.1...   (rewrites each file in place)

The generator copies each command's discussion text as it is, and mdoc reads that text in fill
mode. What this changes, and only outside macro lines:
- an empty line (a paragraph break in the help text) becomes `.Pp`;
- lines indented by two spaces (the examples in the help text) become one literal display
  (`.Bd -literal -offset indent` … `.Ed`), so each example keeps its own line;
- a text line with several sentences is broken after each sentence (mdoc wants each sentence
  on a line of its own); a new line that would begin with `.` or `'` is escaped with `\\&`;
- a `.Pp` the generator puts right before an `.It` (which mdoc skips with a warning) goes.
"""

import re
import sys

SENTENCE_END = re.compile(r"(?<=[.!?])([\"')\]]*) +(?=[A-Z0-9\"'(\[-])")


def escape_start(line: str) -> str:
    return "\\&" + line if line[:1] in (".", "'") else line


def split_sentences(line: str) -> list[str]:
    parts = SENTENCE_END.split(line)
    # re.split with one group: text, closer, text, closer, ..., text
    out, current = [], parts[0]
    for index in range(1, len(parts), 2):
        out.append(current + parts[index])
        current = parts[index + 1]
    out.append(current)
    return [escape_start(part) if index else part for index, part in enumerate(out)]


def tidy(lines: list[str]) -> list[str]:
    out: list[str] = []
    literal = False
    for line in lines:
        indented = line.startswith("  ") and line.strip() != ""
        if indented and not literal:
            out.append(".Bd -literal -offset indent")
            literal = True
        elif not indented and literal:
            out.append(".Ed")
            literal = False
        if literal:
            out.append(escape_start(line[2:]))
        elif line == "":
            out.append(".Pp")
        elif line.startswith(".") or line.startswith("'"):
            out.append(line)
        else:
            out.extend(split_sentences(line))
    if literal:
        out.append(".Ed")
    # No paragraph macro right before a list item, after another paragraph macro, or before
    # the end of a display or a section heading.
    tidied: list[str] = []
    for index, line in enumerate(out):
        following = out[index + 1] if index + 1 < len(out) else ""
        if line == ".Pp" and (following.startswith((".It", ".Pp", ".Sh", ".Bd", ".El")) or (tidied and tidied[-1] == ".Pp")):
            continue
        tidied.append(line)
    return tidied


def main() -> int:
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        lines = text.split("\n")
        trailing = lines[-1] == ""
        if trailing:
            lines = lines[:-1]
        result = "\n".join(tidy(lines)) + ("\n" if trailing else "")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
