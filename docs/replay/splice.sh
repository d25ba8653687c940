#!/bin/bash
# Replays one strategy (default opening) again on every table with an
# every-strategy output under docs/replay (TABLE.txt, .json, .png), with
# the command on the output's first line, and splices it in
# (docs/replay/splice.go): for when only that strategy's code changed
# since the outputs were made. Run from the repository root, with hplopt
# built (HPLOPT=path, default hplopt on the PATH); TABLES limits it to
# some tables (names without .txt); OPENING=1 also makes each
# docs/replay/opening/TABLE.txt again (its first line's command). The
# other strategies' lines are left
# as they are: check one table against a full replay first.
set -euo pipefail
strategy=${STRATEGY:-opening}
hplopt=${HPLOPT:-hplopt}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# replay_args FILE: the hplopt replay command on FILE's first line, without
# "$ hplopt replay ", when FILE's table is among TABLES (when given) and
# FILE is a replay output; fails otherwise.
replay_args() {
	local t first
	t=$(basename "$1" .txt)
	if [ -n "${TABLES:-}" ] && ! [[ " $TABLES " == *" $t "* ]]; then
		return 1
	fi
	first=$(head -1 "$1")
	case "$first" in
	'$ hplopt replay '*) echo "${first#\$ hplopt replay }" ;;
	*) return 1 ;; # not a replay output (times.txt, ...)
	esac
}
if [ -n "${OPENING:-}" ]; then
	for f in docs/replay/opening/*.txt; do
		args=$(replay_args "$f") || continue
		# shellcheck disable=SC2086 # the command's own words
		{ echo "\$ hplopt replay $args"; "$hplopt" replay $args; } >"$tmp/opening.txt"
		mv "$tmp/opening.txt" "$f"
		echo "opening/$(basename "$f" .txt)"
	done
fi
for f in docs/replay/*.txt; do
	t=$(basename "$f" .txt)
	args=$(replay_args "$f") || continue
	# The JSON is committed compressed (TABLE.json.xz): uncompressed for
	# the splice, compressed again after it.
	packed=false
	if [ -f "docs/replay/$t.json.xz" ]; then
		xz -dkf "docs/replay/$t.json.xz"
		packed=true
	fi
	[ -f "docs/replay/$t.json" ] || continue
	table=$(sed -E 's/.*--table ([^ ]+).*/\1/' <<<"$args")
	# shellcheck disable=SC2001 # a regular expression, not a substitution
	args=$(sed -E 's/ --json [^ ]+//; s/ --plot [^ ]+//' <<<"$args")
	case " $args " in *" -s "*) echo "$t: its command names strategies, left out" >&2; continue ;; esac
	start=$(date +%s)
	# shellcheck disable=SC2086 # the command's own words
	"$hplopt" replay $args -s "$strategy" --json "$tmp/$t.json" >"$tmp/$t.txt"
	go run docs/replay/splice.go "$table" "docs/replay/$t" "$tmp/$t"
	if $packed; then
		xz -f "docs/replay/$t.json" # replaces TABLE.json.xz, removes TABLE.json
	fi
	echo "$t: $(($(date +%s) - start)) s"
done
