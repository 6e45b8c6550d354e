# Sourced by scripts/bench/engine-gate and count-gate: their options' values
# checked the moment they are read (issue 44, items 10-12), so a missing or
# malformed value is a clear message and exit 2, never bash's "unbound
# variable" (exit 1) and never minutes of work first.
#   value_of SCRIPT "$@"          -> the value after the option in $1, or exit 2
#   count_of SCRIPT OPTION VALUE  -> VALUE when it is a whole number >= 1, else exit 2
value_of() {
  local script=$1
  shift
  if [[ $# -lt 2 || -z $2 || $2 == -* ]]; then
    echo "$script: $1 needs a value${2:+ (got '$2', another option)}; see --help" >&2
    exit 2
  fi
  printf '%s' "$2"
}
count_of() {
  if [[ ! $3 =~ ^[1-9][0-9]{0,8}$ ]]; then
    echo "$1: $2 '$3' is not a whole number of 1 or more" >&2
    exit 2
  fi
  printf '%s' "$3"
}
