#!/usr/bin/env python3
"""The module table of docs/ARCHITECTURE.md, generated from Package.swift.

One row per target: its name, kind, dependencies, and purpose, which is the comment directly above
the target in Package.swift. The table lives between `<!-- modules:begin -->` and
`<!-- modules:end -->`.

    Tests/module-table.py --write   rewrites the table from Package.swift
    Tests/module-table.py --check   exits 1, printing a diff, if the committed table differs
    Tests/module-table.py           prints the table

A target without a purpose comment fails (exit 2), naming it: the table has no row to guess.
Python 3 standard library only.
"""

import difflib
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "Package.swift"
DOCUMENT = ROOT / "docs" / "ARCHITECTURE.md"
BEGIN, END = "<!-- modules:begin -->", "<!-- modules:end -->"

KINDS = {"target": "library", "executableTarget": "executable", "testTarget": "test", "systemLibrary": "system"}


class ManifestError(Exception):
    pass


def code_only(text):
    """`text` with comments and string contents blanked (same length, newlines kept), so brackets
    inside them are not counted; string quotes stay, so literals can still be found by position."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif text[i] == '"':
            end = i + 1
            while end < n and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            out.append('"' + " " * (end - i - 1) + '"')
            i = end + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def closing(code, start):
    """The index just past the bracket that closes the one at `start`."""
    pairs = {"(": ")", "[": "]"}
    stack = []
    for i in range(start, len(code)):
        c = code[i]
        if c in pairs:
            stack.append(pairs[c])
        elif c in ")]":
            if not stack or stack.pop() != c:
                raise ManifestError(f"unbalanced '{c}' at offset {i}")
            if not stack:
                return i + 1
    raise ManifestError(f"no closing bracket for offset {start}")


def array(text, code, label):
    """(start, end) of the top-level `label: [ … ]` array of the manifest."""
    match = re.search(r"^\s*" + label + r":\s*\[", code, re.MULTILINE)
    if not match:
        raise ManifestError(f"no '{label}: [' in Package.swift")
    start = match.end() - 1
    return start, closing(code, start)


def calls(text, code, start, end):
    """The `.name( … )` calls directly inside the array at [start, end): (name, begin, end)."""
    found, i = [], start + 1
    while i < end - 1:
        match = re.compile(r"\.(\w+)\s*\(").match(code, i)
        if match:
            stop = closing(code, match.end() - 1)
            found.append((match.group(1), match.start(), stop))
            i = stop
        else:
            i += 1
    return found


def literal(text, code, start, end, label):
    """The string after `label:` in [start, end), or None."""
    match = re.compile(label + r':\s*"').search(code, start, end)
    if not match:
        return None
    close = code.index('"', match.end())
    return text[match.end():close]


def purpose(text, begin):
    """The `//` lines directly above the line where a target begins, joined."""
    lines = text[:begin].split("\n")
    lines.pop()  # the target's own line, up to the call
    comment = []
    while lines and lines[-1].strip().startswith("//"):
        comment.insert(0, lines.pop().strip()[2:].strip())
    return " ".join(comment)


def listed(needs):
    """Targets first, as declared; then each package's products: "ParleyCore; swift-nio (NIOCore, NIOPosix)"."""
    targets = [need for need in needs if isinstance(need, str)]
    packages = {}
    for need in needs:
        if not isinstance(need, str):
            packages.setdefault(need[1], []).append(need[0])
    external = [f"{package} ({', '.join(products)})" for package, products in packages.items()]
    return "; ".join(part for part in (", ".join(targets), ", ".join(external)) if part)


def dependencies(text, code, begin, end):
    match = re.compile(r"dependencies:\s*\[").search(code, begin, end)
    if not match:
        return []
    start = match.end() - 1
    stop = closing(code, start)
    names, i = [], start + 1
    while i < stop - 1:
        if code[i] == '"':
            close = code.index('"', i + 1)
            names.append(text[i + 1:close])
            i = close + 1
            continue
        call = re.compile(r"\.(\w+)\s*\(").match(code, i)
        if call:
            after = closing(code, call.end() - 1)
            name = literal(text, code, call.start(), after, "name")
            package = literal(text, code, call.start(), after, "package")
            names.append((name, package) if call.group(1) == "product" and package else name)
            i = after
            continue
        i += 1
    return names


def products(text, code):
    """Which product, if any, each target is: {target: (kind, product name)}."""
    start, end = array(text, code, "products")
    made = {}
    for kind, begin, stop in calls(text, code, start, end):
        name = literal(text, code, begin, stop, "name")
        listed = re.compile(r"targets:\s*\[").search(code, begin, stop)
        if not listed:
            continue
        inner_end = closing(code, listed.end() - 1)
        for target in re.findall(r'"([^"]*)"', text[listed.end():inner_end]):
            made[target] = (kind, name)
    return made


def rows(text):
    code = code_only(text)
    made = products(text, code)
    start, end = array(text, code, "targets")
    table, missing = [], []
    for call, begin, stop in calls(text, code, start, end):
        if call not in KINDS:
            raise ManifestError(f"unknown target kind '.{call}' in Package.swift")
        name = literal(text, code, begin, stop, "name")
        why = purpose(text, begin)
        if not why:
            missing.append(name)
            continue
        kind = KINDS[call]
        if name in made:
            product_kind, product = made[name]
            kind = f"{kind}, product `{product}`" if product_kind == "library" else f"{kind} `{product}`"
        table.append((name, kind, dependencies(text, code, begin, stop), why))
    if missing:
        raise ManifestError(
            "Package.swift: no purpose comment for " + ", ".join(missing)
            + ": add a one-line `// …` comment directly above each, saying what the target is for")
    return table


def cell(text):
    return text.replace("|", "\\|")


def render(table):
    lines = ["| module | kind | depends on | purpose |", "| --- | --- | --- | --- |"]
    for name, kind, needs, why in table:
        lines.append(f"| `{name}` | {kind} | {cell(listed(needs)) or '–'} | {cell(why)} |")
    return "\n".join(lines)


def split(document):
    if document.count(BEGIN) != 1 or document.count(END) != 1 or document.index(BEGIN) > document.index(END):
        raise ManifestError(f"{DOCUMENT.relative_to(ROOT)} needs one '{BEGIN}' line and one '{END}' line after it")
    head, rest = document.split(BEGIN + "\n", 1) if BEGIN + "\n" in document else document.split(BEGIN, 1)
    body, tail = rest.split(END, 1)
    return head, body, tail


def main(arguments):
    mode = arguments[0] if arguments else "--print"
    if mode not in ("--write", "--check", "--print") or len(arguments) > 1:
        print(__doc__.strip(), file=sys.stderr)
        return 64
    try:
        table = render(rows(MANIFEST.read_text()))
        if mode == "--print":
            print(table)
            return 0
        document = DOCUMENT.read_text()
        head, body, tail = split(document)
    except ManifestError as error:
        print(f"module-table: {error}", file=sys.stderr)
        return 2
    wanted = table + "\n"
    if mode == "--write":
        DOCUMENT.write_text(head + BEGIN + "\n" + wanted + END + tail)
        return 0
    if body == wanted:
        return 0
    where = str(DOCUMENT.relative_to(ROOT))
    sys.stdout.writelines(difflib.unified_diff(
        body.splitlines(keepends=True), wanted.splitlines(keepends=True), f"{where} (committed)", "from Package.swift"))
    print(f"module-table: {where}'s module table differs from Package.swift: run Tests/module-table.py --write", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
