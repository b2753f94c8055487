#!/usr/bin/env bash
# Build .gpu/ (ignored by git), what gpu_acceptance.sh needs beside the tree on the GPU machine, in 64 MiB with
# the tracked tree (~18 MB): Quadrants 1.3.3 for CPython 3.12 (its package folders, static libraries left out,
# xz -9e: 25 MB), Ray 2.60 (../shared/tools/make-ray-bundle.sh, then its three binaries stripped and the
# dashboard's web client left out: 18 MB), and the small wheels both need that the machine's image lacks
# (the image has rich, pygments, colorama, attrs, setuptools: KINDS.md's package list).
# Then carry [".gpu"] and run: ln -sfn $PWD/.gpu/qd.tar.xz ../qd.tar.xz; ln -sfn $PWD/.gpu/ray-bundle.tar.xz
#   ../ray-bundle.tar.xz; ln -sfn $PWD/.gpu/deps ../deps; bash benchmarks/gpu_acceptance.sh $OUT 545
set -euo pipefail
cd "$(dirname "$0")/.."
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >> .git/info/exclude
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pipdl() { python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_27_x86_64 \
  --platform manylinux_2_28_x86_64 "$@"; }
rm -rf .gpu && mkdir -p .gpu/deps
pipdl -d "$tmp/w" quadrants==1.3.3
mkdir "$tmp/q" && (cd "$tmp/q" && unzip -q "$tmp"/w/quadrants-*.whl && rm -rf lib64 && tar cf - . | xz -9e -T0 > ../qd.tar.xz)
mv "$tmp/qd.tar.xz" .gpu/
pipdl -d .gpu/deps pydantic==2.14.4 pydantic-core==2.50.5 annotated-types typing-extensions typing-inspection dill \
  cffi pycparser psygnal platformdirs
if [ "${NO_RAY:-}" != 1 ]; then
  bash ../shared/tools/make-ray-bundle.sh
  mkdir "$tmp/r" && tar xJf .ray/ray-bundle.tar.xz -C "$tmp/r"
  strip --strip-unneeded "$tmp"/r/ray/_raylet.so "$tmp"/r/ray/core/src/ray/raylet/raylet "$tmp"/r/ray/core/src/ray/gcs/gcs_server
  rm -rf "$tmp"/r/ray/dashboard/client   # the dashboard's web pages: local clusters start with include_dashboard=False
  (cd "$tmp/r" && tar cf - . | xz -9e -T0) > .gpu/ray-bundle.tar.xz
  cp .ray/whl/*.whl .gpu/deps/
fi
du -sh .gpu/* ; echo "with the tracked tree: $(( ($(du -sb .gpu | cut -f1) + $(git ls-files -z | xargs -0 du -cb | tail -1 | cut -f1)) / 1048576 )) MiB of 64"
