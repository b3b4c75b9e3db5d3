#!/usr/bin/env bash
# Downloads and unpacks the Debian packages whose public-domain photographs the calibration set is built from
# (docs/reading.md, "Calibration"), into <root>; nothing is installed. Then:
#   node tools/bench/dist/src/calibration-set.js <out> <root> && npm run calibrate -- <out>
set -euo pipefail
root="${1:?usage: fetch-photos.sh <root>}"
mkdir -p "$root/debs"
cd "$root/debs"
# visp-images-data: two photographs of the 1927 Solvay conference (Benjamin Couprie; published 1927, public domain in
# the United States); python3-skimage: astronaut.png (NASA, public domain); python-matplotlib-data:
# grace_hopper.jpg (US Navy, public domain)
apt-get download visp-images-data python3-skimage python-matplotlib-data
for deb in ./*.deb; do dpkg-deb -x "$deb" "$root"; done
ls "$root/usr/share/visp-images-data/ViSP-images/faces/1280px-Solvay_conference_1927.png" \
   "$root/usr/share/visp-images-data/ViSP-images/Solvay/Solvay_conference_1927_Version2_2126x1463.jpg" >/dev/null
echo "unpacked into $root"
