#!/bin/sh
# fbi's pictures: four 640x480 JPEGs, generated (the same bytes on every
# machine: integer arithmetic, cjpeg at a fixed quality), into DIR.
set -eu
[ $# = 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
mkdir -p "$1"
for n in 1 2 3 4; do
	awk -v n="$n" 'BEGIN {
		w = 640; h = 480
		print "P3"; print w, h; print 255
		for (y = 0; y < h; y++) {
			line = ""
			for (x = 0; x < w; x++) {
				r = (x * n + y) % 256; g = (y * 2 + x * (5 - n)) % 256
				b = ((x / 32 + y / 32) % 2) * 128 + n * 30
				line = line sprintf("%d %d %d ", r, g, int(b) % 256)
			}
			print line
		}
	}' | cjpeg -quality 85 -outfile "$1/picture$n.jpg"
done
