# common.sh: sourced by the session scripts (session13.sh to session19.sh) after
# they set OUT and PART. Unpacks the binary .gpu/hplopt.xz (`make gpu`, then xz) into
# /tmp/hplopt-bin as $H (and each .gpu/hplopt-X.xz there, other builds,
# as /tmp/hplopt-bin/hplopt-X), writes the GPU's clocks to $OUT/r/gpu-PART.txt
# and defines recheck, twopass, recordpart and recordparts.
B=/tmp/hplopt-bin
mkdir -p "$B" "$OUT/r"
[ -x $B/hplopt ] || { xz -dc .gpu/hplopt.xz > $B/hplopt 2>/dev/null || python3 -c "import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())" .gpu/hplopt.xz > $B/hplopt; chmod +x $B/hplopt; }
H=$B/hplopt
for x in .gpu/hplopt-*.xz; do
	[ -f "$x" ] || continue
	b=$(basename "$x" .xz)
	[ -x "$B/$b" ] || { xz -dc "$x" > "$B/$b" && chmod +x "$B/$b"; }
done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > "$OUT/r/gpu-$PART.txt" 2>&1

# recheck TABLE KERNEL "SIZE" NEUTRAL BUILDERS NAME: TABLE's 10 fastest and
# 10 random rows measured again, three rounds (remeasure.py: the median of
# 10 launches, NEUTRAL the pins of the passes the table lacks, BUILDERS
# each process's --builders), into $OUT/r/rc-NAME.csv and .log, its time
# appended to $OUT/r/rc.txt.
recheck() {
	local start
	start=$(date +%s)
	DEVICE=GPU BUILDERS=$5 HPLOPT=$H NEUTRAL=$4 SAMPLE=10 python3 testdata/replay/remeasure.py "$1" "$2" "$3" "$OUT/r/rc-$6.csv" 10 3 10 2> "$OUT/r/rc-$6.log"
	echo "$6.csv: $(($(date +%s) - start)) s" | tee -a "$OUT/r/rc.txt"
}

# twopass PART TABLE...: groundtruth.sh TABLE... with 16 builders (into
# $OUT/groundtruth1, filling the cache of built programs), then again with
# none (--builders -1, into $OUT/groundtruth2: the tables), logged to
# $OUT/r/PART.txt. With ONEPASS=1 only the second pass, the measuring
# process building each program before measuring it: for a table whose two
# passes do not fit one command.
twopass() {
	local part=$1
	shift
	[ -n "${ONEPASS:-}" ] || HPLOPT=$H OUT=$OUT GT_DIR=groundtruth1 bash docs/results/h100/scripts/groundtruth.sh "$@" 2>&1 | tee "$OUT/r/$part.txt"
	HPLOPT=$H OUT=$OUT GT_DIR=groundtruth2 BUILDERS=-1 bash docs/results/h100/scripts/groundtruth.sh "$@" 2>&1 | tee -a "$OUT/r/$part.txt"
}

# recordpart PART: groundtruth.sh's table PART in two passes (twopass), then
# re-checked with no builder (recheck); its name, kernel and size are
# groundtruth.sh's (GT_LIST=1).
recordpart() {
	local table kernel size
	IFS='|' read -r table kernel size < <(GT_LIST=1 bash docs/results/h100/scripts/groundtruth.sh "$1")
	if [ -z "$table" ]; then
		echo "unknown PART $1" >&2
		return 1
	fi
	twopass "$1" "$1"
	recheck "$OUT/groundtruth2/$table.csv" "$kernel" "$size" "" -1 "$table"
}

# recordparts PART,...: recordpart for each PART in turn, an unknown one
# skipped with a message. With GUARD=S, no PART is begun once S seconds
# have passed since the first (each is logged to $OUT/r/skipped.txt), so
# that none is cut short by the 10 minutes of one command. With AFTER_PART
# set, that command runs after each PART (session22.sh packs what is done).
recordparts() {
	local part start
	start=$(date +%s)
	for part in ${1//,/ }; do
		if [ -n "${GUARD:-}" ] && [ $(($(date +%s) - start)) -ge "$GUARD" ]; then
			echo "$part not begun: $GUARD s have passed" | tee -a "$OUT/r/skipped.txt"
			continue
		fi
		recordpart "$part"
		[ -z "${AFTER_PART:-}" ] || $AFTER_PART
	done
}
