# tests/cli/zsh-complete.zsh SCRIPT WORDS... - what the zsh completion
# function SCRIPT defines offers for the last of WORDS, one match a line,
# with the completion system's builtins stood in for (tests/cli/run.sh).
# The completion system's builtins, standing in: each prints the matches it
# would offer for $PREFIX (after the ignored prefix $IPREFIX)
compdef() { :; }
_files() { :; }
offer() { local w; for w in "$@"; do [[ $w == ${PREFIX}* ]] && print -r -- "$IPREFIX$w"; done; return 0; }
_describe() { local -a c; c=("${(@P)4}"); offer "${c[@]%%:*}"; }
compset() { [[ $1 == -P ]] && [[ $PREFIX == ${~2}* ]] && { IPREFIX=${(M)PREFIX##${~2}}; PREFIX=${PREFIX#$IPREFIX}; }; }
compadd() {
    local -a w
    while (( $# )); do
        case $1 in
        -S) shift 2 ;;
        -a) w+=("${(@P)2}"); shift 2 ;;
        *) w+=("$1"); shift ;;
        esac
    done
    offer "${w[@]}"
}
source "$1"
shift
words=("$@"); CURRENT=$#; PREFIX=$words[-1]; IPREFIX=
_fleetsim
