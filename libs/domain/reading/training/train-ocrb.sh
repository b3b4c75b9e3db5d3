#!/usr/bin/env bash
# Trains assets/ocrb.traineddata: a Tesseract legacy-engine model of the OCR-B font (the font of every
# machine-readable zone) for the MRZ alphabet A-Z 0-9 <. Tesseract's English models are not trained on OCR-B and
# misread it (docs/reading.md); no OCR-B model ships in npm or Debian, so this one is made here, from Debian's
# public-domain OCR-B font with Debian's Tesseract training tools. Nothing is downloaded.
#
#   apt-get install -y tesseract-ocr fonts-ocr-b
#   bash libs/domain/reading/training/train-ocrb.sh        # about three minutes on two cores
#
# The lines rendered are mrz-lines.txt: random MRZ characters, fillers, and runs of the look-alikes
# (0 O D Q, 5 S, 8 B, 1 I, 2 Z, 6 G, U V). Each is rendered at two sizes and three exposures, clean and degraded.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/../assets/ocrb.traineddata"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
cp "$here/mrz-lines.txt" train.txt
echo "ocrb 0 0 1 0 0" > font_properties
i=0
for pt in 9 12; do
  for exposure in -1 0 1; do
    for degrade in false true; do
      text2image --text=train.txt --outputbase="ocrb.ocrb.exp$i" --font='OCR B' --fonts_dir=/usr/share/fonts \
        --ptsize=$pt --exposure=$exposure --leading=20 --xsize=3600 --ysize=4800 --degrade_image=$degrade >/dev/null 2>&1
      i=$((i + 1))
    done
  done
done
for tif in *.tif; do tesseract "$tif" "${tif%.tif}" box.train >/dev/null 2>&1; done
unicharset_extractor ./*.box >/dev/null 2>&1
mftraining -F font_properties -U unicharset -O ocrb.unicharset ./*.tr >/dev/null 2>&1
cntraining ./*.tr >/dev/null 2>&1
for f in inttemp pffmtable normproto shapetable; do mv "$f" "ocrb.$f"; done
combine_tessdata ocrb. >/dev/null 2>&1
cp ocrb.traineddata "$out"
echo "wrote $out ($(stat -c %s "$out") bytes)"
