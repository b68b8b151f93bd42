#!/usr/bin/env bash
# The GPU check's bundle: the device machine that tools/gpu_check.sh runs on (nvcc, CMake, ninja, a
# C++ compiler, Python) has no oneDNN, Eigen, Catch2 or nlohmann-json, and can fetch nothing. This
# script, run here where Debian's archive is reachable, downloads their .deb files (and what they
# need that such a machine lacks: oneDNN's library links the OpenCL loader, and its CMake package
# looks for OpenCL's headers) into .gpu-bundle/, which git ignores and the device tool carries
# (carry: [".gpu-bundle"]). gpu_check.sh unpacks them into a private prefix with dpkg -x; nothing is
# installed on either machine. The bundle must stay under 40 MiB (the tree and it travel together,
# 64 MiB at most).
#   bash tools/gpu_bundle.sh          (needs apt-get; run apt-get update first if it finds nothing)
set -euo pipefail
cd "$(dirname "$0")/.."

bundle=.gpu-bundle
limit_bytes=$((40 * 1024 * 1024))
# The build needs the first five; libdnnl2 needs libOpenCL.so.1 at run time (ocl-icd-libopencl1),
# and dnnl-config.cmake's find_package(OpenCL) needs CL/cl.h (opencl-c-headers) and libOpenCL.so
# (ocl-icd-opencl-dev). libdnnl2's other needs (libc6 >= 2.34, libstdc++6, libgcc-s1, libgomp1)
# come with any C++ compiler's runtime on a current distribution.
packages=(libdnnl-dev libdnnl2 libeigen3-dev catch2 nlohmann-json3-dev
          ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers)

rm -rf "$bundle"
mkdir -p "$bundle"
# The versions installed here, when they are: the bundle then builds what this machine tests.
wanted=()
for p in "${packages[@]}"; do
  version=$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null || true)
  wanted+=("$p${version:+=$version}")
done
(cd "$bundle" && apt-get download -qq -o APT::Sandbox::User=root "${wanted[@]}")

# The manifest names each file with its checksum: gpu_check.sh refuses a bundle that differs.
(cd "$bundle" && sha256sum -- *.deb >MANIFEST)
bytes=$(du -cb "$bundle"/*.deb | tail -1 | cut -f1)
echo "gpu_bundle: ${#packages[@]} packages, $((bytes / 1024)) KiB in $bundle/:"
sed 's/^[0-9a-f]*  /  /' "$bundle/MANIFEST"
if ((bytes > limit_bytes)); then
  echo "gpu_bundle: the bundle is over 40 MiB ($bytes bytes)" >&2
  exit 1
fi
