#!/usr/bin/env bash
# `make setup`: install the Debian packages rosetta's backends and tests need,
# only those missing, saying what it installs. Idempotent; uses sudo when not root.
set -euo pipefail

packages=(
  mesa-vulkan-drivers      # lavapipe: a Vulkan device for wgpu and the Vulkan backend
  libvulkan1               # the Vulkan loader (ash and wgpu open it at run time)
  vulkan-validationlayers  # VK_LAYER_KHRONOS_validation, for the validated conformance run
  pocl-opencl-icd          # PoCL: an OpenCL device
  ocl-icd-libopencl1       # the OpenCL ICD loader
  ocl-icd-opencl-dev       # libOpenCL.so, which the OpenCL backend links against
  opencl-headers
  g++                      # the glslang crate builds glslang (C++) from source
  python3-numpy            # tests/numpy/agreement.py (rosetta run against numpy)
)

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "setup: not a Debian/Ubuntu system; install the equivalents of: ${packages[*]}" >&2
  exit 1
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "setup: all packages present (${#packages[@]})"
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null 2>&1 || { echo "setup: need root or sudo to install ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "setup: done"
