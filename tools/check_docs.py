#!/usr/bin/env python3
"""Fails, naming them, when README.md, CONTRIBUTING.md, docs/guide.md, docs/tour.md, docs/compile.md or bench/README.md
name a file, folder or program that is not there, or when the README's copy of examples/first_program.cpp
differs from it: a path in backquotes (`engine/core/tensor.h`, `demos/exercise*.cpp`) or in a shell command
of a ```sh block (`bash tools/ember.sh demo`, `PYTHONPATH=build-demo/python`) must exist in the repository, and a program in a build folder (`build/demos/chapter`,
`build-demo/demos/pitfalls`) must have been built in the build folder given. A CTest case runs it
after the build, so the documents cannot drift from the code.
docs/tour.md and docs/compile.md are held closer: a function they name as `path:function` must be defined in
that file; each ```trace block the tour quotes must be what BUILD_DIR/demos/tour prints (lines in order, a
line "..." skipping any number of them); an indented ```cpp block of docs/compile.md (generated code) must
be part of a golden file in tests/fixtures/compile/.
Usage: check_docs.py BUILD_DIR
"""
import glob
import os
import re
import sys

DOCUMENTS = ["README.md", "CONTRIBUTING.md", "docs/guide.md", "docs/tour.md", "docs/compile.md", "bench/README.md"]
TOUR = "docs/tour.md"
READING_GUIDES = (TOUR, "docs/compile.md")  # their `path:function` names are checked
TOP_FOLDERS = ("engine/", "kernels/", "cuda/", "tests/", "tools/", "demos/", "bench/", "examples/", "cmake/",
               ".ci/", "python/", "docs/")
README_MAX_LINES = 250
BUILT_ON_REQUEST = ("bench/vs_libtorch",)  # defined only where libtorch is installed, built when asked


def command_words(text):
    """The words of the shell commands in ```sh blocks, comments left out, `VAR=value` as its value."""
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.splitlines():
            for word in re.split(r"\s+", re.sub(r"(^|\s)#.*", "", line)):
                yield word.split("=", 1)[-1].strip("'\"")


def named_paths(text):
    for token in re.findall(r"`([^`\s]+)`", text) + list(command_words(text)):
        token = token.rstrip(".,:;)")
        token = re.sub(r":[A-Za-z_][A-Za-z_0-9:]*$", "", token)  # `engine/dispatch.h:call`: the file
        token = re.sub(r"\.\*$", ".h", token)  # `allocator.*` names the header and its source
        token = re.sub(r"<[^>]+>", "*", token)  # `kernels/<family>.cpp`: any family
        if token.startswith(("build/", "build-demo/")) or token.startswith(TOP_FOLDERS):
            yield token


def named_functions(text):
    """The `path:function` pairs a document names."""
    return re.findall(r"`((?:engine|kernels|cuda|python)/[^`:\s]+):([A-Za-z_][A-Za-z_0-9:]*)`", text)


def defines(path, function):
    """Whether `path` defines `function` (a function, a struct or class, or a method Class::name)."""
    name = function.split("::")[-1]
    source = open(path, encoding="utf-8").read()
    return re.search(rf"(\b(struct|class)\s+{name}\b|\b{name}\s*\([^;]*\)\s*(const\s*)?\{{)", source, re.S)


def as_avx512_prints_it(lines):
    """On a CPU whose oneDNN has no bf16 matmul the tour's bf16 products are widened to float32
    (kernels/matmul.cpp, gemm): the line that says so, the operands' copies to float32, the float32
    product and the result's copy back, read as the one line an AVX-512 CPU prints. The same
    reading as tests/test_dispatch_trace.cpp's as_avx512_runs_it."""
    read, widening, widened = [], False, False
    for line in lines:
        trimmed = line.strip()
        if trimmed == "widened to float32: this CPU's oneDNN has no bf16 matmul":
            widening = True
            continue
        if (widening or widened) and trimmed.startswith("loop: "):
            continue
        widened = False
        if widening and trimmed.startswith("oneDNN float32 matmul "):
            widening, widened = False, True
            line = line.replace("float32", "bf16", 1)
        read.append(line)
    return read


def quoted_but_not_printed(text, printed):
    """The ```trace blocks of `text` that are not in `printed` (the tour's lines), in order."""
    wrong, position = [], 0
    for block in re.findall(r"```trace\n(.*?)```", text, re.S):
        for part in re.split(r"^\s*\.\.\.\s*$", block, flags=re.M):
            excerpt = [line for line in part.splitlines() if line.strip()]
            if not excerpt:
                continue
            found = next((i for i in range(position, len(printed) - len(excerpt) + 1)
                          if printed[i:i + len(excerpt)] == excerpt), None)
            if found is None:
                wrong.append(f"  {TOUR}: this excerpt is not what demos/tour prints, after its previous one:\n    " +
                             "\n    ".join(excerpt[:3]))
            else:
                position = found + len(excerpt)
    return wrong


def check_tour(build):
    wrong = [f"  {guide}: `{path}:{function}` is not defined there" for guide in READING_GUIDES
             for path, function in named_functions(open(guide, encoding="utf-8").read())
             if not os.path.exists(path) or not defines(path, function)]
    generated = "".join(open(path, encoding="utf-8").read() for path in glob.glob("tests/fixtures/compile/*.cpp"))
    wrong += [f"  docs/compile.md: a ```cpp excerpt is not in tests/fixtures/compile/: {block.splitlines()[0].strip()}"
              for block in re.findall(r"```cpp\n(.*?)```", open("docs/compile.md", encoding="utf-8").read(), re.S)
              if block.startswith(" ") and block not in generated]
    text = open(TOUR, encoding="utf-8").read()
    if build is not None:
        import subprocess
        printed = subprocess.run([os.path.join(build, "demos", "tour")], capture_output=True, text=True, check=True)
        wrong += quoted_but_not_printed(text, as_avx512_prints_it(printed.stdout.splitlines()))
    return wrong


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    build = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else None
    os.chdir(root)
    missing = []
    for document in DOCUMENTS:
        for path in named_paths(open(document, encoding="utf-8").read()):
            if path.startswith(("build/", "build-demo/")):
                program = path.split("/", 1)[1]
                if build is None or program.startswith(BUILT_ON_REQUEST):
                    continue
                found = glob.glob(os.path.join(build, program))
            else:
                found = glob.glob(path.rstrip("/"))
            if not found:
                missing.append(f"  {document}: `{path}`")
    missing += check_tour(build)
    # The README shows examples/first_program.cpp whole; a test builds and runs that file.
    if open("examples/first_program.cpp", encoding="utf-8").read() not in open("README.md", encoding="utf-8").read():
        missing.append("  README.md: its copy of `examples/first_program.cpp` differs from the file")
    # The README is the user's guide, short enough to read through; the rest lives in docs/ and
    # CONTRIBUTING.md.
    readme_lines = open("README.md", encoding="utf-8").read().count("\n")
    if readme_lines > README_MAX_LINES:
        missing.append(f"  README.md: {readme_lines} lines, over its {README_MAX_LINES}")
    if missing:
        print("check_docs: named but not there, or too long:")
        print("\n".join(sorted(set(missing))))
        sys.exit(1)
    print("check_docs: every path and program the documents name is there")


main()
