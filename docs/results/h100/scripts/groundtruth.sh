#!/bin/bash
# groundtruth.sh [matmul|conv2d|syrk|nbody|mv|nbody-wide|mv-wide|conv2d-wide|matmul-wide|dcs3d|transpose|syr2k|conv3d|conv3d-k3|conv3d-k7|jacobi2d|covariance|sepfilter|stencil3d|conv1d|matmul-guard|mvt|boxfilter|fdtd-ey|bicg|gs-r|covariance-tri|stencil2d|gs-update|fdtd-hz|gs-update8192|gs-update2048|jacobi2d-box|transpose-box|fdtd-ey-box|gs-r8192|gs-update-fdtd|gs-update8192-fdtd|gs-update6144|fdtd-hz-box|transpose8192-box|stencil2d-fdtd|boxfilter-fdtd|jacobi2d-fdtd|transpose-fdtd|mv-mvt|bicg4096|mvt4096|stencil2d8192|jacobi2d8192-fdtd|boxfilter8192|fdtd-ey8192|fdtd-hz8192|stencil2d8192-fdtd|boxfilter8192-fdtd|jacobi2d8192-box|transpose8192-fdtd|fdtd-ey8192-box|bicg16384|mvt16384|conv2d2048|stencil2d6144-fdtd|jacobi2d6144-box|boxfilter6144-fdtd|fdtd-hz6144-box|transpose6144-fdtd|fdtd-ey6144|conv3d256-k3|sepfilter8192|gs-update6144-fdtd|transpose8192|stencil3d512|jacobi2d8192|syrk2048|covariance2048|conv1d65536|gs-r16384|gs-update3072|syrk1536|bicg6144|gs-update5120-fdtd|jacobi2d6144-fdtd|boxfilter5120-fdtd|fdtd-ey5120|bicg5120|boxfilter7168-fdtd|fdtd-ey7168|jacobi2d5120-fdtd|boxfilter3072-fdtd|gs-update7168-fdtd]...:
# measures dense subspaces of the Table 2
# space on the GPU, every point (hplopt tune -s exhaustive --params PINS),
# each into its own records database, and writes each as a replay table
# (hplopt replay --export-table: no Go, no python) under $OUT:
#
#   $OUT/groundtruth/matmul1024-h100.csv  MATMUL n=1024x1024 k=1024, 1295 points
#   $OUT/groundtruth/conv2d1024-h100.csv  2DCONV n=1024x1024 k=7x7,   885 points
#   $OUT/groundtruth/syrk1024-h100.csv    SYRK n=1024x1024 k=1024,    912 points
#   $OUT/groundtruth/nbody32768-h100.csv  NBODY n=32768 k=32768,      504 points
#   $OUT/groundtruth/mv8192-h100.csv      MV n=8192 k=8192,           523 points
#   $OUT/groundtruth/nbody32768-h100-wide.csv  NBODY, bszx free,     2480 points
#   $OUT/groundtruth/mv8192-h100-wide.csv      MV, vw=1, tw0 free,   2200 points
#   $OUT/groundtruth/conv2d1024-h100-wide.csv  2DCONV, bszy free, lcopy=0, 2890 points
#   $OUT/groundtruth/matmul1024-h100-wide.csv  MATMUL, tw0 free, vw=2, 4608 points
#   $OUT/groundtruth/dcs3d64-h100.csv     DCS3D n=64x64x64 k=4096, 4384 points
#   $OUT/groundtruth/transpose4096-h100.csv  transpose n=4096x4096, 2256 points
#   $OUT/groundtruth/syr2k1024-h100.csv   SYR2K n=1024x1024 k=1024, 2360 points
#   $OUT/groundtruth/conv3d128-h100.csv   3DCONV n=128x128x128 k=5x5x5, 1626 points
#   $OUT/groundtruth/conv3d128k3-h100.csv 3DCONV k=3x3x3, as conv3d,  1626 points
#   $OUT/groundtruth/conv3d128k7-h100.csv 3DCONV k=7x7x7, as conv3d,  1626 points
#   $OUT/groundtruth/jacobi2d4096-h100.csv  jacobi2d n=4096x4096, 2x2 blocks, 4272 points
#   $OUT/groundtruth/covariance1024-h100.csv  covariance n=1024x1024 k=1024, 4x4 blocks, 2790 points
#   $OUT/groundtruth/sepfilter4096-h100.csv   sepfilter n=4096x4096 k=33, bszx=1, 3552 points
#   $OUT/groundtruth/stencil3d256-h100.csv    stencil3d n=256x256x256, bszz free, 3480 points
#   $OUT/groundtruth/conv1d32768-h100.csv     1DCONV n=32768 k=32768, tw0=32, 3100 points
#   $OUT/groundtruth/matmul-guard2000-h100.csv  matmul-guard n=2000x2000 k=2000, 16x16 groups, bszy=4, 2592 points
#   $OUT/groundtruth/mvt8192-h100.csv         mvt n=8192 k=8192, tw0=32, 2750 points
#   $OUT/groundtruth/boxfilter4096-h100.csv   boxfilter n=4096x4096, 32x4 groups, 1620 points
#   $OUT/groundtruth/fdtd-ey4096-h100.csv     fdtd-ey n=4096x4096, bszx=1, lszx=32, 2112 points
#   $OUT/groundtruth/bicg8192-h100.csv        bicg n=8192 k=8192, mvt's pins, 2750 points
#   $OUT/groundtruth/gs-r4096-h100.csv        gs-r n=4096 k=4096, mvt's pins, 2510 points
#   $OUT/groundtruth/covariance-tri1024-h100.csv  covariance-tri n=1024 k=1024, mvt's pins, 1950 points
#     (not recorded: its kernels take 14 ms to 1 s, and its first pass on the
#     H200 ran past the 10 minutes of one command after 1489 points)
#   $OUT/groundtruth/stencil2d4096-h100.csv   stencil2d n=4096x4096, boxfilter's pins, 1620 points
#   $OUT/groundtruth/gs-update4096-h100.csv   gs-update n=4096x4096, boxfilter's pins, 810 points
#   $OUT/groundtruth/fdtd-hz4096-h100.csv     fdtd-hz n=4096x4096, fdtd-ey's pins, 2112 points
#   $OUT/groundtruth/gs-update8192-h100.csv   gs-update n=8192x8192, boxfilter's pins, 870 points
#   $OUT/groundtruth/gs-update2048-h100.csv   gs-update n=2048x2048, boxfilter's pins, 720 points
#   $OUT/groundtruth/jacobi2d4096-h100-box.csv  jacobi2d n=4096x4096, boxfilter's pins, 1620 points
#   $OUT/groundtruth/transpose4096-h100-box.csv transpose n=4096x4096, boxfilter's pins, 810 points
#   $OUT/groundtruth/fdtd-ey4096-h100-box.csv   fdtd-ey n=4096x4096, boxfilter's pins, 1620 points
#   $OUT/groundtruth/gs-r8192-h100.csv        gs-r n=8192 k=8192, mvt's pins, 2750 points
#   $OUT/groundtruth/gs-update4096-h100-fdtd.csv  gs-update n=4096x4096, fdtd-ey's pins, 1056 points
#   $OUT/groundtruth/gs-update8192-h100-fdtd.csv  gs-update n=8192x8192, fdtd-ey's pins, 1074 points
#   $OUT/groundtruth/gs-update6144-h100.csv   gs-update n=6144x6144, boxfilter's pins, 870 points
#   $OUT/groundtruth/fdtd-hz4096-h100-box.csv   fdtd-hz n=4096x4096, boxfilter's pins, 1620 points
#   $OUT/groundtruth/transpose8192-h100-box.csv transpose n=8192x8192, boxfilter's pins, 870 points
#   $OUT/groundtruth/stencil2d4096-h100-fdtd.csv  stencil2d n=4096x4096, fdtd-ey's pins, 2112 points
#   $OUT/groundtruth/boxfilter4096-h100-fdtd.csv  boxfilter n=4096x4096, fdtd-ey's pins, 2112 points
#   $OUT/groundtruth/jacobi2d4096-h100-fdtd.csv   jacobi2d n=4096x4096, fdtd-ey's pins, 2112 points
#   $OUT/groundtruth/transpose4096-h100-fdtd.csv  transpose n=4096x4096, fdtd-ey's pins, 1056 points
#   $OUT/groundtruth/mv8192-h100-mvt.csv      mv n=8192 k=8192, mvt's pins, 2750 points
#   $OUT/groundtruth/bicg4096-h100.csv        bicg n=4096 k=4096, mvt's pins, 2510 points
#   $OUT/groundtruth/mvt4096-h100.csv         mvt n=4096 k=4096, mvt's pins, 2510 points
#   $OUT/groundtruth/stencil2d8192-h100.csv   stencil2d n=8192x8192, boxfilter's pins, 1740 points
#   $OUT/groundtruth/jacobi2d8192-h100-fdtd.csv   jacobi2d n=8192x8192, fdtd-ey's pins, 2148 points
#   $OUT/groundtruth/boxfilter8192-h100.csv   boxfilter n=8192x8192, boxfilter's pins, 1740 points
#   $OUT/groundtruth/fdtd-ey8192-h100.csv     fdtd-ey n=8192x8192, fdtd-ey's pins, 2148 points
#   $OUT/groundtruth/fdtd-hz8192-h100.csv     fdtd-hz n=8192x8192, fdtd-ey's pins, 2148 points
#   $OUT/groundtruth/stencil2d8192-h100-fdtd.csv  stencil2d n=8192x8192, fdtd-ey's pins, 2148 points
#   $OUT/groundtruth/boxfilter8192-h100-fdtd.csv  boxfilter n=8192x8192, fdtd-ey's pins, 2148 points
#   $OUT/groundtruth/jacobi2d8192-h100-box.csv    jacobi2d n=8192x8192, boxfilter's pins, 1740 points
#   $OUT/groundtruth/transpose8192-h100-fdtd.csv  transpose n=8192x8192, fdtd-ey's pins, 1074 points
#   $OUT/groundtruth/fdtd-ey8192-h100-box.csv     fdtd-ey n=8192x8192, boxfilter's pins, 1740 points
#   $OUT/groundtruth/bicg16384-h100.csv       bicg n=16384 k=16384, mvt's pins, 2950 points
#   $OUT/groundtruth/mvt16384-h100.csv        mvt n=16384 k=16384, mvt's pins, 2950 points
#   $OUT/groundtruth/conv2d2048-h100.csv      2DCONV n=2048x2048 k=7x7, as conv2d, 1002 points
#   $OUT/groundtruth/stencil2d6144-h100-fdtd.csv  stencil2d n=6144x6144, fdtd-ey's pins, 2148 points
#   $OUT/groundtruth/jacobi2d6144-h100-box.csv    jacobi2d n=6144x6144, boxfilter's pins, 1740 points
#   $OUT/groundtruth/boxfilter6144-h100-fdtd.csv  boxfilter n=6144x6144, fdtd-ey's pins, 2148 points
#   $OUT/groundtruth/fdtd-hz6144-h100-box.csv     fdtd-hz n=6144x6144, boxfilter's pins, 1740 points
#   $OUT/groundtruth/transpose6144-h100-fdtd.csv  transpose n=6144x6144, fdtd-ey's pins, 1074 points
#   $OUT/groundtruth/fdtd-ey6144-h100.csv     fdtd-ey n=6144x6144, fdtd-ey's pins, 2148 points
#   $OUT/groundtruth/conv3d256k3-h100.csv     3DCONV n=256x256x256 k=3x3x3, as conv3d, 2180 points
#   $OUT/groundtruth/sepfilter8192-h100.csv   sepfilter n=8192x8192 k=33, as sepfilter, 3710 points
#   $OUT/groundtruth/gs-update6144-h100-fdtd.csv  gs-update n=6144x6144, fdtd-ey's pins, 1074 points
#   $OUT/groundtruth/transpose8192-h100.csv   transpose n=8192x8192, as transpose, 2328 points
#   $OUT/groundtruth/stencil3d512-h100.csv    stencil3d n=512x512x512, as stencil3d, 3840 points
#   $OUT/groundtruth/jacobi2d8192-h100.csv    jacobi2d n=8192x8192, as jacobi2d, 4512 points
#   $OUT/groundtruth/syrk2048-h100.csv        SYRK n=2048x2048 k=2048, as syrk, 992 points
#   $OUT/groundtruth/covariance2048-h100.csv  covariance n=2048x2048 k=2048, as covariance, 3410 points
#   $OUT/groundtruth/conv1d65536-h100.csv     1DCONV n=65536 k=65536, mvt's pins, 3200 points
#   $OUT/groundtruth/gs-r16384-h100.csv       gs-r n=16384 k=16384, mvt's pins, 2950 points
#   $OUT/groundtruth/gs-update3072-h100.csv   gs-update n=3072x3072, boxfilter's pins, 810 points
#   $OUT/groundtruth/syrk1536-h100.csv        SYRK n=1536x1536 k=1536, as syrk, 992 points
#   $OUT/groundtruth/bicg6144-h100.csv        bicg n=6144 k=6144, mvt's pins, 2750 points
#   $OUT/groundtruth/gs-update5120-h100-fdtd.csv  gs-update n=5120x5120, fdtd-ey's pins, 1074 points
#   $OUT/groundtruth/jacobi2d6144-h100-fdtd.csv   jacobi2d n=6144x6144, fdtd-ey's pins, 2148 points
#   $OUT/groundtruth/boxfilter5120-h100-fdtd.csv  boxfilter n=5120x5120, fdtd-ey's pins, 2148 points
#   $OUT/groundtruth/fdtd-ey5120-h100.csv     fdtd-ey n=5120x5120, fdtd-ey's pins, 2148 points
#   $OUT/groundtruth/bicg5120-h100.csv        bicg n=5120 k=5120, mvt's pins, 2750 points
#   $OUT/groundtruth/boxfilter7168-h100-fdtd.csv  boxfilter n=7168x7168, fdtd-ey's pins, 2148 points
#   $OUT/groundtruth/fdtd-ey7168-h100.csv     fdtd-ey n=7168x7168, fdtd-ey's pins, 2148 points
#   $OUT/groundtruth/jacobi2d5120-h100-fdtd.csv   jacobi2d n=5120x5120, fdtd-ey's pins, 2148 points
#   $OUT/groundtruth/boxfilter3072-h100-fdtd.csv  boxfilter n=3072x3072, fdtd-ey's pins, 2112 points
#   $OUT/groundtruth/gs-update7168-h100-fdtd.csv  gs-update n=7168x7168, fdtd-ey's pins, 1074 points
#
# with the run's output (.txt) and records database (.db) beside each.
# The extensions of the space since table2-2 (vec, pack, ltrans, prefetch,
# warp, gswz, split, coff; ftz and fission in the tables recorded since
# 2026-11-27) are pinned to their neutral values, so the tables are
# subspaces of table2-2's passes. The counts are those of the space with the H100's limits (work-
# groups of at most 1024, local sizes at most 1024x1024x64); the test
# TestGroundTruthSpaces (optimizer) checks them. Each table takes about
# 2 to 3.5 minutes at 0.1 to 0.15 s per variant (builds in parallel, runs of
# 0.1 to 10 ms); -t 540 keeps each under the 10 minutes of one command, so
# run one table per command if the first takes longer than expected:
#
#   docs/results/h100/scripts/groundtruth.sh matmul
#   docs/results/h100/scripts/groundtruth.sh conv2d
#
# The tables go to testdata/replay/ (docs/replay.md says how they are used).
#
# With GT_LIST=1 it measures nothing and prints a line NAME|KERNEL|SIZE per
# table instead (common.sh's recordpart reads them). With GT_TABLES=1 it
# measures nothing and prints every table, one a line as in $tables below,
# the pins expanded (TestGroundTruthSpaces reads them and checks each
# count: the tables' pins and counts are written here only). GT_DEV names the
# device in the tables' names (default h100: matmul1024-h100; h200 for the
# same subspaces recorded on an H200, whose work-group and local-memory
# limits are the H100's, so the counts hold).
set -u
dev=${GT_DEV:-h100}
H=${HPLOPT:-$PWD/.gpu/hplopt}
D=${OUT:-.}/${GT_DIR:-groundtruth}
# Listing (GT_LIST or GT_TABLES): no output directory, no binary.
listing=${GT_LIST:-}${GT_TABLES:-}
[ -n "$listing" ] || mkdir -p "$D"
# Parallel builds: the builder pool's flag when the binary has it
# ($BUILDERS, default 16; -1: no builder processes, the measuring process
# builds, for a second pass over a warm cache of built programs).
if [ -z "$listing" ] && "$H" tune -h 2>&1 | grep -q -- '--builders'; then
	par="--builders ${BUILDERS:-16}"
else
	par="--builds 16"
fi

# The pins of MVT (1DCONV's are the same), BOXFILTER and FDTD-EY, which
# the held-out tables of 2026-12-02 (bicg, gs-r, covariance-tri;
# stencil2d, gs-update; fdtd-hz) take as well, and those of the next
# session (gs-r8192; gs-update8192, gs-update2048 and the -box tables),
# and those of the session after (session24.sh: the -fdtd tables,
# gs-update6144, fdtd-hz-box and transpose8192-box), and of the one after
# that (session25.sh: transpose-fdtd, mv-mvt, bicg4096, mvt4096,
# stencil2d8192, jacobi2d8192-fdtd, boxfilter8192), and of the one after
# that (session26.sh: fdtd-ey8192, fdtd-hz8192, stencil2d8192-fdtd,
# boxfilter8192-fdtd, jacobi2d8192-box, transpose8192-fdtd,
# fdtd-ey8192-box, bicg16384, mvt16384), and of the one after that
# (session27.sh: stencil2d6144-fdtd, jacobi2d6144-box, boxfilter6144-fdtd,
# fdtd-hz6144-box, transpose6144-fdtd, fdtd-ey6144), and of the one after
# that (session28.sh: gs-update6144-fdtd).
mvt_pins=fullunroll=1,interleave=1,vw=1,lcopy=0,tw0=32,vec=1,pack=0,ltrans=0,prefetch=0,split=1,coff=0,ftz=0,fission=0
boxfilter_pins=fullunroll=1,interleave=1,vw=1,lcopy=0,lszx=32,lszy=4,vec=1,warp=0,gswz=1,coff=0,ftz=0
fdtd_pins=fullunroll=1,interleave=1,vw=1,lcopy=0,bszx=1,lszx=32,vec=1,warp=0,gswz=1,coff=0,ftz=0
# The pins of each kernel's first table, given again to its later tables
# (other sizes, other filters).
conv2d_pins=fullunroll=1,interleave=1,uf=1,vw=1,tw0=0,tw1=0,bszx=4,bszy=4,szy=256,vec=1,pack=0,ltrans=0,prefetch=0,warp=0,gswz=1,split=1,coff=0,ftz=0,fission=0
conv3d_pins=fullunroll=1,interleave=1,uf=1,vw=1,lcopy=0,tw0=0,tw1=0,tw2=0,bszy=1,bszz=1,lszz=1,szy=128,szz=128,vec=1,pack=0,ltrans=0,prefetch=0,warp=0,gswz=1,split=1,coff=0,ftz=0,fission=0
covariance_pins=fullunroll=1,interleave=1,uf=4,vw=1,lcopy=0,bszx=4,bszy=4,tw0=32,vec=1,pack=0,ltrans=0,prefetch=0,warp=0,gswz=1,split=1,coff=0,ftz=0,fission=0
jacobi2d_pins=fullunroll=1,interleave=1,vw=1,lcopy=0,bszx=2,bszy=2,vec=1,warp=0,gswz=1,coff=0,ftz=0
sepfilter_pins=fullunroll=1,interleave=1,uf=1,vw=1,lcopy=0,bszx=1,tw0=0,szx=4096,vec=1,pack=0,ltrans=0,prefetch=0,warp=0,gswz=1,split=1,coff=0,ftz=0,fission=0
stencil3d_pins=fullunroll=1,interleave=1,vw=1,lcopy=0,bszx=1,bszy=1,lszz=1,szx=256,szy=256,vec=1,warp=0,gswz=1,coff=0,ftz=0
syrk_pins=fullunroll=1,interleave=1,bszx=4,bszy=8,vw=2,szx=256,szy=128,lcopy=0,uf=4,vec=1,pack=0,ltrans=0,prefetch=0,warp=0,gswz=1,split=1,coff=0,ftz=0,fission=0
transpose_pins=fullunroll=1,interleave=1,vw=1,bszx=1,bszy=1,vec=1,warp=0,gswz=1,coff=0,ftz=0

# record NAME KERNEL "SIZE FLAGS" PINS POINTS
record() {
	name=$1 kernel=$2 size=$3 pins=$4 points=$5
	if [ -n "${GT_LIST:-}" ]; then
		echo "$name|$kernel|$size"
		return
	fi
	db=$D/$name.db
	rm -f "$db" "$db-wal" "$db-shm"
	start=$(date +%s)
	# shellcheck disable=SC2086
	"$H" tune "$kernel" $size -d GPU -s exhaustive -t 540 -q --seed 1 --params "$pins" --db "$db" $par > "$D/$name.txt" 2>&1
	"$H" replay --db "$db" --export-table "$D/$name.csv" >> "$D/$name.txt" 2>&1
	echo "$name: $(($(date +%s) - start)) s, want $points points: $(grep -E '^(space|evaluations|failures|best|wrote)' "$D/$name.txt" | tr '\n' ' ')"
}

# The tables, one a line: PART|NAME|KERNEL|SIZE FLAGS|PINS|POINTS (record's
# arguments after PART, the name groundtruth.sh is given).
tables="
matmul|matmul1024-$dev|matmul|-n 1024,1024 -k 1024|fullunroll=1,uf=4,lcopy=0,interleave=1,lszx=16,lszy=16,lmem=1,tw0=32,vec=1,pack=0,ltrans=0,prefetch=0,warp=0,gswz=1,split=1,coff=0|1295
conv2d|conv2d1024-$dev|conv2d|-n 1024,1024 -k 7,7|$conv2d_pins|885
syrk|syrk1024-$dev|syrk|-n 1024,1024 -k 1024|$syrk_pins|912
nbody|nbody32768-$dev|nbody|-n 32768 -k 32768|interleave=1,fullunroll=1,vw=1,lcopy=0,uf=4,lmem=1,bszx=4,vec=1,pack=0,ltrans=0,prefetch=0,split=1,coff=0,ftz=0,fission=0|504
mv|mv8192-$dev|mv|-n 8192 -k 8192|interleave=1,fullunroll=1,lmem=0,uf=4,tw0=0,vec=1,pack=0,ltrans=0,prefetch=0,split=1,coff=0,ftz=0,fission=0|523
nbody-wide|nbody32768-$dev-wide|nbody|-n 32768 -k 32768|interleave=1,fullunroll=1,vw=1,lcopy=0,uf=4,lmem=1,vec=1,pack=0,ltrans=0,prefetch=0,split=1,coff=0,ftz=0,fission=0|2480
mv-wide|mv8192-$dev-wide|mv|-n 8192 -k 8192|interleave=1,fullunroll=1,lmem=0,uf=4,vw=1,vec=1,pack=0,ltrans=0,prefetch=0,split=1,coff=0,ftz=0,fission=0|2200
conv2d-wide|conv2d1024-$dev-wide|conv2d|-n 1024,1024 -k 7,7|fullunroll=1,interleave=1,uf=1,vw=1,tw0=0,tw1=0,bszx=4,szy=256,lcopy=0,vec=1,pack=0,ltrans=0,prefetch=0,warp=0,gswz=1,split=1,coff=0,ftz=0,fission=0|2890
matmul-wide|matmul1024-$dev-wide|matmul|-n 1024,1024 -k 1024|fullunroll=1,uf=4,lcopy=0,interleave=1,lszx=16,lszy=16,lmem=1,vw=2,vec=1,pack=0,ltrans=0,prefetch=0,warp=0,gswz=1,split=1,coff=0,ftz=0,fission=0|4608
dcs3d|dcs3d64-$dev|dcs3d|-n 64,64,64 -k 4096|fullunroll=1,interleave=1,uf=4,vw=1,lcopy=0,lmem=1,bszy=1,bszz=1,lszz=1,szy=64,szz=64,vec=1,pack=0,ltrans=0,prefetch=0,warp=0,gswz=1,split=1,coff=0,ftz=0,fission=0|4384
transpose|transpose4096-$dev|transpose|-n 4096,4096|$transpose_pins|2256
syr2k|syr2k1024-$dev|syr2k|-n 1024,1024 -k 1024|fullunroll=1,interleave=1,uf=4,vw=2,lcopy=0,lmem=1,bszx=4,szx=256,szy=128,vec=1,pack=0,ltrans=0,prefetch=0,warp=0,gswz=1,split=1,coff=0,ftz=0,fission=0|2360
conv3d|conv3d128-$dev|conv3d|-n 128,128,128 -k 5,5,5|$conv3d_pins|1626
conv3d-k3|conv3d128k3-$dev|conv3d|-n 128,128,128 -k 3,3,3|$conv3d_pins|1626
conv3d-k7|conv3d128k7-$dev|conv3d|-n 128,128,128 -k 7,7,7|$conv3d_pins|1626
jacobi2d|jacobi2d4096-$dev|jacobi2d|-n 4096,4096|$jacobi2d_pins|4272
covariance|covariance1024-$dev|covariance|-n 1024,1024 -k 1024|$covariance_pins|2790
sepfilter|sepfilter4096-$dev|sepfilter|-n 4096,4096 -k 33|$sepfilter_pins|3552
stencil3d|stencil3d256-$dev|stencil3d|-n 256,256,256|$stencil3d_pins|3480
conv1d|conv1d32768-$dev|conv1d|-n 32768 -k 32768|$mvt_pins|3100
matmul-guard|matmul-guard2000-$dev|matmul-guard|-n 2000,2000 -k 2000|fullunroll=1,interleave=1,uf=4,vw=1,lcopy=0,lszx=16,lszy=16,bszy=4,vec=1,pack=0,ltrans=0,prefetch=0,warp=0,gswz=1,split=1,coff=0,ftz=0,fission=0|2592
mvt|mvt8192-$dev|mvt|-n 8192 -k 8192|$mvt_pins|2750
boxfilter|boxfilter4096-$dev|boxfilter|-n 4096,4096|$boxfilter_pins|1620
fdtd-ey|fdtd-ey4096-$dev|fdtd-ey|-n 4096,4096|$fdtd_pins|2112
bicg|bicg8192-$dev|bicg|-n 8192 -k 8192|$mvt_pins|2750
gs-r|gs-r4096-$dev|gs-r|-n 4096 -k 4096|$mvt_pins|2510
covariance-tri|covariance-tri1024-$dev|covariance-tri|-n 1024 -k 1024|$mvt_pins|1950
stencil2d|stencil2d4096-$dev|stencil2d|-n 4096,4096|$boxfilter_pins|1620
gs-update|gs-update4096-$dev|gs-update|-n 4096,4096|$boxfilter_pins|810
fdtd-hz|fdtd-hz4096-$dev|fdtd-hz|-n 4096,4096|$fdtd_pins|2112
gs-update8192|gs-update8192-$dev|gs-update|-n 8192,8192|$boxfilter_pins|870
gs-update2048|gs-update2048-$dev|gs-update|-n 2048,2048|$boxfilter_pins|720
jacobi2d-box|jacobi2d4096-$dev-box|jacobi2d|-n 4096,4096|$boxfilter_pins|1620
transpose-box|transpose4096-$dev-box|transpose|-n 4096,4096|$boxfilter_pins|810
fdtd-ey-box|fdtd-ey4096-$dev-box|fdtd-ey|-n 4096,4096|$boxfilter_pins|1620
gs-r8192|gs-r8192-$dev|gs-r|-n 8192 -k 8192|$mvt_pins|2750
gs-update-fdtd|gs-update4096-$dev-fdtd|gs-update|-n 4096,4096|$fdtd_pins|1056
gs-update8192-fdtd|gs-update8192-$dev-fdtd|gs-update|-n 8192,8192|$fdtd_pins|1074
gs-update6144|gs-update6144-$dev|gs-update|-n 6144,6144|$boxfilter_pins|870
fdtd-hz-box|fdtd-hz4096-$dev-box|fdtd-hz|-n 4096,4096|$boxfilter_pins|1620
transpose8192-box|transpose8192-$dev-box|transpose|-n 8192,8192|$boxfilter_pins|870
stencil2d-fdtd|stencil2d4096-$dev-fdtd|stencil2d|-n 4096,4096|$fdtd_pins|2112
boxfilter-fdtd|boxfilter4096-$dev-fdtd|boxfilter|-n 4096,4096|$fdtd_pins|2112
jacobi2d-fdtd|jacobi2d4096-$dev-fdtd|jacobi2d|-n 4096,4096|$fdtd_pins|2112
transpose-fdtd|transpose4096-$dev-fdtd|transpose|-n 4096,4096|$fdtd_pins|1056
mv-mvt|mv8192-$dev-mvt|mv|-n 8192 -k 8192|$mvt_pins|2750
bicg4096|bicg4096-$dev|bicg|-n 4096 -k 4096|$mvt_pins|2510
mvt4096|mvt4096-$dev|mvt|-n 4096 -k 4096|$mvt_pins|2510
stencil2d8192|stencil2d8192-$dev|stencil2d|-n 8192,8192|$boxfilter_pins|1740
jacobi2d8192-fdtd|jacobi2d8192-$dev-fdtd|jacobi2d|-n 8192,8192|$fdtd_pins|2148
boxfilter8192|boxfilter8192-$dev|boxfilter|-n 8192,8192|$boxfilter_pins|1740
fdtd-ey8192|fdtd-ey8192-$dev|fdtd-ey|-n 8192,8192|$fdtd_pins|2148
fdtd-hz8192|fdtd-hz8192-$dev|fdtd-hz|-n 8192,8192|$fdtd_pins|2148
stencil2d8192-fdtd|stencil2d8192-$dev-fdtd|stencil2d|-n 8192,8192|$fdtd_pins|2148
boxfilter8192-fdtd|boxfilter8192-$dev-fdtd|boxfilter|-n 8192,8192|$fdtd_pins|2148
jacobi2d8192-box|jacobi2d8192-$dev-box|jacobi2d|-n 8192,8192|$boxfilter_pins|1740
transpose8192-fdtd|transpose8192-$dev-fdtd|transpose|-n 8192,8192|$fdtd_pins|1074
fdtd-ey8192-box|fdtd-ey8192-$dev-box|fdtd-ey|-n 8192,8192|$boxfilter_pins|1740
bicg16384|bicg16384-$dev|bicg|-n 16384 -k 16384|$mvt_pins|2950
mvt16384|mvt16384-$dev|mvt|-n 16384 -k 16384|$mvt_pins|2950
conv2d2048|conv2d2048-$dev|conv2d|-n 2048,2048 -k 7,7|$conv2d_pins|1002
stencil2d6144-fdtd|stencil2d6144-$dev-fdtd|stencil2d|-n 6144,6144|$fdtd_pins|2148
jacobi2d6144-box|jacobi2d6144-$dev-box|jacobi2d|-n 6144,6144|$boxfilter_pins|1740
boxfilter6144-fdtd|boxfilter6144-$dev-fdtd|boxfilter|-n 6144,6144|$fdtd_pins|2148
fdtd-hz6144-box|fdtd-hz6144-$dev-box|fdtd-hz|-n 6144,6144|$boxfilter_pins|1740
transpose6144-fdtd|transpose6144-$dev-fdtd|transpose|-n 6144,6144|$fdtd_pins|1074
fdtd-ey6144|fdtd-ey6144-$dev|fdtd-ey|-n 6144,6144|$fdtd_pins|2148
conv3d256-k3|conv3d256k3-$dev|conv3d|-n 256,256,256 -k 3,3,3|$conv3d_pins|2180
sepfilter8192|sepfilter8192-$dev|sepfilter|-n 8192,8192 -k 33|$sepfilter_pins|3710
gs-update6144-fdtd|gs-update6144-$dev-fdtd|gs-update|-n 6144,6144|$fdtd_pins|1074
transpose8192|transpose8192-$dev|transpose|-n 8192,8192|$transpose_pins|2328
stencil3d512|stencil3d512-$dev|stencil3d|-n 512,512,512|$stencil3d_pins|3840
jacobi2d8192|jacobi2d8192-$dev|jacobi2d|-n 8192,8192|$jacobi2d_pins|4512
syrk2048|syrk2048-$dev|syrk|-n 2048,2048 -k 2048|$syrk_pins|992
covariance2048|covariance2048-$dev|covariance|-n 2048,2048 -k 2048|$covariance_pins|3410
conv1d65536|conv1d65536-$dev|conv1d|-n 65536 -k 65536|$mvt_pins|3200
gs-r16384|gs-r16384-$dev|gs-r|-n 16384 -k 16384|$mvt_pins|2950
gs-update3072|gs-update3072-$dev|gs-update|-n 3072,3072|$boxfilter_pins|810
syrk1536|syrk1536-$dev|syrk|-n 1536,1536 -k 1536|$syrk_pins|992
bicg6144|bicg6144-$dev|bicg|-n 6144 -k 6144|$mvt_pins|2750
gs-update5120-fdtd|gs-update5120-$dev-fdtd|gs-update|-n 5120,5120|$fdtd_pins|1074
jacobi2d6144-fdtd|jacobi2d6144-$dev-fdtd|jacobi2d|-n 6144,6144|$fdtd_pins|2148
boxfilter5120-fdtd|boxfilter5120-$dev-fdtd|boxfilter|-n 5120,5120|$fdtd_pins|2148
fdtd-ey5120|fdtd-ey5120-$dev|fdtd-ey|-n 5120,5120|$fdtd_pins|2148
bicg5120|bicg5120-$dev|bicg|-n 5120 -k 5120|$mvt_pins|2750
boxfilter7168-fdtd|boxfilter7168-$dev-fdtd|boxfilter|-n 7168,7168|$fdtd_pins|2148
fdtd-ey7168|fdtd-ey7168-$dev|fdtd-ey|-n 7168,7168|$fdtd_pins|2148
jacobi2d5120-fdtd|jacobi2d5120-$dev-fdtd|jacobi2d|-n 5120,5120|$fdtd_pins|2148
boxfilter3072-fdtd|boxfilter3072-$dev-fdtd|boxfilter|-n 3072,3072|$fdtd_pins|2112
gs-update7168-fdtd|gs-update7168-$dev-fdtd|gs-update|-n 7168,7168|$fdtd_pins|1074
"

if [ -n "${GT_TABLES:-}" ]; then
	awk NF <<<"$tables"
	exit 0
fi

for t in "${@:-matmul conv2d}"; do
	for which in $t; do
		line=$(awk -F'|' -v part="$which" '$1 == part' <<<"$tables")
		if [ -z "$line" ]; then
			parts=$(awk -F'|' 'NF { printf "%s%s", sep, $1; sep = ", " }' <<<"$tables")
			echo "groundtruth.sh: unknown table $which (${parts%, *} or ${parts##*, })" >&2
			exit 2
		fi
		IFS='|' read -r _ name kernel size pins points <<<"$line"
		record "$name" "$kernel" "$size" "$pins" "$points"
	done
done
