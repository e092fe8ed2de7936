#!/usr/bin/env python3
"""Checks the shape of the product's Swift sources: no file over 400 lines, no function over 80.

A function's length runs from its declaration to its closing brace. The bench (`Sources/boxvoice-bench`) is a
measuring tool, not the product, and is left out. Exits 1, naming each offender, when either limit is passed."""
import os
import re
import sys

FILE_LIMIT = 400
FUNCTION_LIMIT = 80
DECLARATION = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|package|static|class|override|"
    r"mutating|nonmutating|nonisolated|final|convenience|required|open|private\(set\)|public\(set\))\s+)*"
    r"(func\s+[^\s(<]+|init[?!]?|deinit|subscript)\s*[(<{]?")


def code_only(line, in_block):
    """The line without string literals and comments (so braces inside them do not count); whether a block comment
    is still open after it."""
    out, i = [], 0
    while i < len(line):
        if in_block:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out), True
            i, in_block = end + 2, False
        elif line.startswith("//", i):
            break
        elif line.startswith("/*", i):
            in_block, i = True, i + 2
        elif line[i] == '"':
            j = i + 1
            while j < len(line) and line[j] != '"':
                j += 2 if line[j] == "\\" else 1
            i = j + 1
        else:
            out.append(line[i])
            i += 1
    return "".join(out), in_block


def functions(lines):
    """(name, first line, length) of every function, initializer and subscript with a body."""
    cleaned, in_block, in_multiline = [], False, False
    for line in lines:
        if line.count('"""') % 2 == 1:
            in_multiline = not in_multiline
            cleaned.append("")
            continue
        if in_multiline:
            cleaned.append("")
            continue
        text, in_block = code_only(line, in_block)
        cleaned.append(text)
    found = []
    for start, text in enumerate(cleaned):
        match = DECLARATION.match(text)
        if not match:
            continue
        depth, opened = 0, False
        for index in range(start, len(cleaned)):
            for char in cleaned[index]:
                if char == "{":
                    depth, opened = depth + 1, True
                elif char == "}":
                    depth -= 1
            # A protocol requirement (no body) ends at its line.
            if not opened and index > start and DECLARATION.match(cleaned[index]):
                break
            if opened and depth == 0:
                found.append((match.group(1), start + 1, index - start + 1))
                break
    return found


def main(root):
    problems = []
    for folder, _, names in sorted(os.walk(os.path.join(root, "Sources"))):
        if "/boxvoice-bench" in folder:
            continue
        for name in sorted(names):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as handle:
                lines = handle.read().split("\n")
            relative = os.path.relpath(path, root)
            count = len(lines) - (1 if lines and lines[-1] == "" else 0)
            if count > FILE_LIMIT:
                problems.append(f"{relative}: {count} lines (at most {FILE_LIMIT})")
            for function, first, length in functions(lines):
                if length > FUNCTION_LIMIT:
                    problems.append(f"{relative}:{first}: {function} is {length} lines (at most {FUNCTION_LIMIT})")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
