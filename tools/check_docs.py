#!/usr/bin/env python3
"""Fails, naming them, when README.md, CONTRIBUTING.md or bench/README.md name a file, folder or
program that is not there, or when the README's copy of examples/first_program.cpp differs from it: a path in backquotes (`engine/core/tensor.h`, `demos/exercise*.cpp`)
must exist in the repository, and a program in a build folder (`build/demos/chapter`,
`build-demo/demos/pitfalls`) must have been built in the build folder given. A CTest case runs it
after the build, so the documents cannot drift from the code.
Usage: check_docs.py BUILD_DIR
"""
import glob
import os
import re
import sys

DOCUMENTS = ["README.md", "CONTRIBUTING.md", "bench/README.md"]
TOP_FOLDERS = ("engine/", "kernels/", "cuda/", "tests/", "tools/", "demos/", "bench/", "examples/", "cmake/",
               ".ci/", "python/")
BUILT_ON_REQUEST = ("bench/vs_libtorch",)  # defined only where libtorch is installed, built when asked


def named_paths(text):
    for token in re.findall(r"`([^`\s]+)`", text):
        token = token.rstrip(".,:;)")
        token = re.sub(r"\.\*$", ".h", token)  # `allocator.*` names the header and its source
        token = re.sub(r"<[^>]+>", "*", token)  # `kernels/<family>.cpp`: any family
        if token.startswith(("build/", "build-demo/")) or token.startswith(TOP_FOLDERS):
            yield token


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
    # The README shows examples/first_program.cpp whole; a test builds and runs that file.
    if open("examples/first_program.cpp", encoding="utf-8").read() not in open("README.md", encoding="utf-8").read():
        missing.append("  README.md: its copy of `examples/first_program.cpp` differs from the file")
    if missing:
        print("check_docs: these are named but not there:")
        print("\n".join(sorted(set(missing))))
        sys.exit(1)
    print("check_docs: every path and program the documents name is there")


main()
