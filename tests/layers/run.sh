#!/usr/bin/env bash
# tests/layers/run.sh - the dependency rule (docs/architecture.md): a folder
# includes only folders below it in
#   tools > serve > study > run > reports > sim > io > sched > models > base > include
# (include/fleetsim/: the installed plugin ABI, which includes nothing of ours)
# Every '#include "..."' of every .c and .h in those folders is resolved
# against the including file's folder and checked.  Exit 1 on any breach,
# listing each one as FILE:LINE: FROM may not include TO.
set -u
cd "$(dirname "$0")/../.."
order=(include base models sched io sim reports run study serve tools)
rank() { local i; for i in "${!order[@]}"; do [ "${order[$i]}" = "$1" ] && { echo "$i"; return; }; done; echo -1; }
# Known breaches, "FILE:TARGET" each, with the reason it is still there
# (none today).
allowed=" "
fail=0 n=0
for dir in "${order[@]}"; do
    from=$(rank "$dir")
    while IFS=: read -r file line text; do
        inc=${text#*\"}; inc=${inc%%\"*}
        target=$(realpath -m --relative-to=. "$(dirname "$file")/$inc")
        top=${target%%/*}
        to=$(rank "$top")
        n=$((n + 1))
        if [ "$to" -lt 0 ]; then
            echo "$file:$line: includes $target, outside the layered folders"; fail=1
        elif [ "$to" -gt "$from" ] && [[ $allowed != *" $file:$target "* ]]; then
            echo "$file:$line: $dir may not include $top ($target)"; fail=1
        fi
    done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' $(find "$dir" -name '*.[ch]' | sort) /dev/null)
done
if [ "$fail" = 0 ]; then echo "layers: $n includes follow the dependency rule"; else echo "layers: FAILED"; fi
exit "$fail"
