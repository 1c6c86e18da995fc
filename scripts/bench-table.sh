#!/bin/sh
# bench-table.sh OUTPUT - the closing table of `make bench`: every line
# TARGET|what|measured|op|target|unit that a benchmark printed into OUTPUT,
# with met or MISSED, and the load averages OUTPUT records; exits 0 either
# way (a missed target is a finding, not a failed build).
awk -F'|' '
/^load average / { load[++loads] = $0 }
$1 == "TARGET" && NF == 6 {
    met = ($4 == "<=") ? ($3 + 0 <= $5 + 0) : ($3 + 0 >= $5 + 0)
    rows[++n] = sprintf("%-72s %10s %2s %-9s %s", $2, $3, $4, $5 " " $6, met ? "met" : "MISSED")
    missed += !met
}
END {
    print ""
    print "== targets"
    printf "%-72s %10s %2s %-9s %s\n", "what", "measured", "", "target", ""
    for (i = 1; i <= n; i++)
        print rows[i]
    if (!n)
        print "(no benchmark printed a target)"
    printf "%d targets, %d met, %d missed\n", n, n - missed, missed
    for (i = 1; i <= loads; i++)
        print load[i]
}' "$1"
